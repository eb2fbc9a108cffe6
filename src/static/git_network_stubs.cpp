// Linked into stoker-static only (cmake/static_link.cmake). stoker asks libgit2 one thing,
// whether a path is ignored (src/core/discover.cpp); it never opens a remote. Two pieces of
// libgit2's network support are replaced here:
//
// - Its global initialization sets up TLS for https remotes and in doing so parses the system's
//   whole CA bundle (about 56 million instructions, most of a small run's startup). The link
//   wraps that function (-Wl,--wrap=git_mbedtls_stream_global_init) with a no-op.
// - Its HTTP "Negotiate" authentication calls GSSAPI (Kerberos), of which Debian ships no static
//   archive. These definitions fail every call with GSS_S_FAILURE, which libgit2 reports as an
//   authentication error; they are never reached.
#include <cstdint>

namespace {
using OM_uint32 = std::uint32_t;
constexpr OM_uint32 kGssFailure = 13u << 16;  // GSS_S_FAILURE
OM_uint32 fail(OM_uint32* minor) {
  if (minor) *minor = 0;
  return kGssFailure;
}
}  // namespace

extern "C" {
int __wrap_git_mbedtls_stream_global_init(void) { return 0; }

void* GSS_C_NT_HOSTBASED_SERVICE = nullptr;
OM_uint32 gss_indicate_mechs(OM_uint32* minor, void** mech_set) {
  if (mech_set) *mech_set = nullptr;
  return fail(minor);
}
OM_uint32 gss_import_name(OM_uint32* minor, void*, void*, void** name) {
  if (name) *name = nullptr;
  return fail(minor);
}
OM_uint32 gss_init_sec_context(OM_uint32* minor, void*, void**, void*, void*, OM_uint32, OM_uint32, void*, void*,
                               void** actual_mech, void*, OM_uint32* ret_flags, OM_uint32* time_rec) {
  if (actual_mech) *actual_mech = nullptr;
  if (ret_flags) *ret_flags = 0;
  if (time_rec) *time_rec = 0;
  return fail(minor);
}
OM_uint32 gss_display_status(OM_uint32* minor, OM_uint32, int, void*, OM_uint32* context, void*) {
  if (context) *context = 0;
  return fail(minor);
}
OM_uint32 gss_delete_sec_context(OM_uint32* minor, void**, void*) { return fail(minor); }
OM_uint32 gss_release_buffer(OM_uint32* minor, void*) { return fail(minor); }
OM_uint32 gss_release_name(OM_uint32* minor, void**) { return fail(minor); }
OM_uint32 gss_release_oid_set(OM_uint32* minor, void**) { return fail(minor); }
}
