# stoker-static: the same objects as `stoker`, linked against the static archives of Clang, LLVM,
# libgit2 (with its TLS, SSH and regex libraries), tree-sitter and the C++ runtime, so that the
# executable needs nothing at run time but the C library (docs/install.md). The archives come from
# Debian's llvm-22-dev, libclang-22-dev, libgit2-dev and their dependencies.
#
# Only what the analyzer references is linked: the archives are one link group, every object was
# compiled with -ffunction-sections -fdata-sections (as Debian's LLVM archives are), and
# --gc-sections drops the unreferenced sections; the result is stripped.

set(_stoker_clang_components
  clangTooling clangToolingCore clangToolingInclusions clangToolingInclusionsStdlib clangFormat
  clangRewrite clangFrontend clangDriver clangOptions clangSerialization clangParse clangSema
  clangAPINotes clangAnalysis clangAnalysisLifetimeSafety clangASTMatchers clangAST clangEdit
  clangLex clangBasic clangSupport)
execute_process(COMMAND ${STOKER_LLVM_ROOT}/bin/llvm-config --link-static --libnames
                        support option frontendopenmp frontendhlsl frontenddriver frontendoffloading
                        mc mcparser bitreader profiledata core binaryformat targetparser
                        windowsdriver demangle textapi object
                OUTPUT_VARIABLE _stoker_llvm_libnames OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE _stoker_llvm_config_rc)
if(NOT _stoker_llvm_config_rc EQUAL 0)
  message(FATAL_ERROR "llvm-config under ${STOKER_LLVM_ROOT}/bin failed; stoker-static needs it")
endif()
separate_arguments(_stoker_llvm_libnames UNIX_COMMAND "${_stoker_llvm_libnames}")

set(STOKER_STATIC_ARCHIVES "")
set(STOKER_STATIC_MISSING "")
foreach(lib ${_stoker_clang_components})
  set(a ${STOKER_LLVM_ROOT}/lib/lib${lib}.a)
  if(EXISTS ${a})
    list(APPEND STOKER_STATIC_ARCHIVES ${a})
  endif()
endforeach()
foreach(name ${_stoker_llvm_libnames})
  list(APPEND STOKER_STATIC_ARCHIVES ${STOKER_LLVM_ROOT}/lib/${name})
endforeach()
# libgit2 and what Debian's build of it needs (pkg-config's Libs.private; libssh2 needs OpenSSL's
# libcrypto; GSSAPI is stubbed, src/static/), tree-sitter, zlib, zstd.
foreach(name git2 mbedtls mbedx509 mbedcrypto http_parser ssh2 crypto pcre2-8 tree-sitter z zstd)
  find_library(STOKER_STATIC_${name} NAMES lib${name}.a)
  if(STOKER_STATIC_${name})
    list(APPEND STOKER_STATIC_ARCHIVES ${STOKER_STATIC_${name}})
  else()
    list(APPEND STOKER_STATIC_MISSING lib${name}.a)
  endif()
endforeach()

if(STOKER_STATIC_MISSING)
  message(STATUS "stoker-static: not available, missing ${STOKER_STATIC_MISSING}")
  if(STOKER_STATIC)
    message(FATAL_ERROR "STOKER_STATIC=ON needs ${STOKER_STATIC_MISSING} (setup.sh installs them)")
  endif()
  return()
endif()

if(STOKER_STATIC)
  add_executable(stoker-static ${STOKER_CLI_SOURCES} src/static/git_network_stubs.cpp src/static/glibc_compat.cpp)
else()
  add_executable(stoker-static EXCLUDE_FROM_ALL ${STOKER_CLI_SOURCES} src/static/git_network_stubs.cpp src/static/glibc_compat.cpp)
endif()
set_target_properties(stoker-static PROPERTIES STOKER_STATIC_LINK ON)
# The archives belong after stoker's own (libstoker_lib.a, libstoker_cxx.a, which reference
# them): in stoker_cxx's link interface, for consumers with STOKER_STATIC_LINK only.
target_link_libraries(stoker_cxx PUBLIC
  "$<${STOKER_STATIC_LINK}:-Wl,--start-group;${STOKER_STATIC_ARCHIVES};-Wl,--end-group>")
# jemalloc's archive, as the dynamic build links its shared library (CMakeLists.txt): its malloc
# and free are the executable's own, exported so that glibc's internal calls use them too.
if(STOKER_USES_JEMALLOC)
  find_library(STOKER_STATIC_jemalloc NAMES libjemalloc_pic.a libjemalloc.a)
  if(STOKER_STATIC_jemalloc)
    # Whole: no object references malloc before the C++ runtime's archive, which the driver puts last.
    target_link_libraries(stoker-static PRIVATE -Wl,--whole-archive ${STOKER_STATIC_jemalloc}
                          -Wl,--no-whole-archive -lpthread)
  else()
    message(WARNING "stoker-static: no static jemalloc archive, it uses glibc's malloc")
  endif()
endif()
target_link_libraries(stoker-static PRIVATE stoker_lib CLI11::CLI11
  -static-libstdc++ -static-libgcc -Wl,--gc-sections -Wl,--as-needed -Wl,-O1 -s
  # libgit2's TLS set-up (it parses the whole CA bundle) is replaced by a no-op: src/static/.
  -Wl,--wrap=git_mbedtls_stream_global_init
  -lrt -ldl -lm)
# gold links it in about two thirds of ld.bfd's time (16 s against 24 s on the loaded 2-core
# machine, docs/install.md); binutils ships it.
find_program(STOKER_LD_GOLD ld.gold)
if(STOKER_LD_GOLD)
  set(_stoker_default_linker gold)
else()
  set(_stoker_default_linker "")
endif()
set(STOKER_STATIC_LINKER "${_stoker_default_linker}" CACHE STRING
    "Linker for stoker-static (-fuse-ld=VALUE: gold, lld, bfd); empty: the compiler's default")
if(STOKER_STATIC_LINKER)
  target_link_options(stoker-static PRIVATE -fuse-ld=${STOKER_STATIC_LINKER})
endif()
