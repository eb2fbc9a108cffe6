#!/usr/bin/env python3
"""Build the stoker wheel from a built self-contained binary, with the standard library only.

    packaging/build_wheel.py BINARY OUT_DIR [--version X.Y.Z]

The wheel (stoker-VERSION-py3-none-manylinux_2_NN_x86_64.whl) carries the binary in
stoker-VERSION.data/scripts/, as ruff's wheels carry theirs: pip puts it on the environment's
PATH (venv/bin/stoker). A small `stoker` package beside it makes `python -m stoker` run the binary.
The manylinux tag is the newest glibc symbol version the binary needs (read from its ELF
version-needs section, as `objdump -T` shows them); the binary must need no shared library but
glibc's (checked from its DT_NEEDED entries). No network, no build backend, reproducible: the
archive's timestamps are SOURCE_DATE_EPOCH (default 1980-01-01) and its entries sorted.
"""
import argparse
import base64
import hashlib
import os
import re
import struct
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# glibc's own libraries: the only DT_NEEDED entries a manylinux binary may have (besides the
# loader). libm, libpthread, libdl and librt are part of glibc.
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                   "ld-linux-x86-64.so.2"}


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(stoker\s+VERSION\s+([0-9][0-9A-Za-z.]*)", f.read())
    if not m:
        sys.exit("build_wheel: no `project(stoker VERSION ...)` in CMakeLists.txt")
    return m.group(1)


def elf_dependencies(path):
    """(DT_NEEDED names, {library: set of version names}) of an x86_64 ELF executable."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path} is not a 64-bit little-endian ELF file")
    (e_machine,) = struct.unpack_from("<H", data, 18)
    if e_machine != 62:
        raise ValueError(f"{path} is not an x86_64 executable (e_machine {e_machine})")
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        name, stype, flags, addr, offset, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, off)
        sections.append((stype, offset, size, link, info, entsize))

    def string(strtab, at):
        start = sections[strtab][1] + at
        end = data.index(b"\0", start)
        return data[start:end].decode()

    needed, versions = [], {}
    for stype, offset, size, link, info, entsize in sections:
        if stype == 6:  # SHT_DYNAMIC
            for at in range(offset, offset + size, 16):
                tag, val = struct.unpack_from("<qQ", data, at)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(string(link, val))
        elif stype == 0x6FFFFFFE:  # SHT_GNU_verneed
            at = offset
            for _ in range(info):
                vn_version, vn_cnt, vn_file, vn_aux, vn_next = struct.unpack_from("<HHIII", data, at)
                lib = string(link, vn_file)
                aux = at + vn_aux
                for _ in range(vn_cnt):
                    vna_hash, vna_flags, vna_other, vna_name, vna_next = struct.unpack_from("<IHHII", data, aux)
                    versions.setdefault(lib, set()).add(string(link, vna_name))
                    aux += vna_next
                at += vn_next
    return needed, versions


def manylinux_tag(binary):
    needed, versions = elf_dependencies(binary)
    foreign = sorted(set(needed) - GLIBC_LIBRARIES)
    if foreign:
        raise ValueError(f"{binary} needs shared libraries other than glibc's: {', '.join(foreign)} "
                         "(build the self-contained stoker-static, docs/install.md)")
    newest = (2, 17)  # manylinux2014's floor: nothing older is worth a tag
    for names in versions.values():
        for v in names:
            m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", v)
            if m:
                newest = max(newest, (int(m.group(1)), int(m.group(2))))
    return f"manylinux_{newest[0]}_{newest[1]}_x86_64", newest


def record_line(arcname, payload):
    digest = base64.urlsafe_b64encode(hashlib.sha256(payload).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(payload)}"


MAIN_PY = '''"""`python -m stoker`: run the stoker binary that this wheel installed into the scripts directory."""
import os
import sys
import sysconfig


def find_stoker_bin():
    exe = "stoker" + (sysconfig.get_config_var("EXE") or "")
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    user = sysconfig.get_path("scripts", scheme=os.name + "_user") if os.name == "posix" else None
    if user:
        candidates.append(os.path.join(user, exe))
    candidates.append(os.path.join(os.path.dirname(sys.executable), exe))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise FileNotFoundError("the stoker binary was not found beside this Python: " + ", ".join(candidates))


def main():
    stoker = find_stoker_bin()
    os.execv(stoker, [stoker, *sys.argv[1:]])


if __name__ == "__main__":
    main()
'''


def build(binary, out_dir, version):
    tag, glibc = manylinux_tag(binary)
    name = f"stoker-{version}"
    wheel_name = f"stoker-{version}-py3-none-{tag}.whl"
    with open(binary, "rb") as f:
        payload = f.read()
    readme = os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as f:
        description = f.read()
    metadata = "\n".join([
        "Metadata-Version: 2.1",
        "Name: stoker",
        f"Version: {version}",
        "Summary: Finds the code that leaves your GPU waiting for data (PyTorch Python, C++/CUDA)",
        "Requires-Python: >=3.7",
        "Classifier: Environment :: Console",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Topic :: Software Development :: Quality Assurance",
        "Description-Content-Type: text/markdown",
        "",
        description,
    ])
    wheel_meta = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: stoker packaging/build_wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: py3-none-{tag}",
        "",
    ])
    files = [
        (f"{name}.data/scripts/stoker", payload, 0o755),
        ("stoker/__init__.py", f'"""stoker {version}: the binary is in the scripts directory; see __main__."""\n'
                               f'__version__ = "{version}"\n'.encode(), 0o644),
        ("stoker/__main__.py", MAIN_PY.encode(), 0o644),
        (f"{name}.dist-info/METADATA", metadata.encode(), 0o644),
        (f"{name}.dist-info/WHEEL", wheel_meta.encode(), 0o644),
    ]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    import time
    date_time = time.gmtime(max(epoch, 315532800))[:6]
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, wheel_name)
    tmp = target + ".tmp"
    record = [record_line(a, p) for a, p, _ in files]
    record.append(f"{name}.dist-info/RECORD,,")
    files.append((f"{name}.dist-info/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for arcname, data, mode in files:
            info = zipfile.ZipInfo(arcname, date_time)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, target)
    return target, glibc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary", help="the self-contained stoker binary (build/stoker-static)")
    ap.add_argument("out_dir")
    ap.add_argument("--version", default=None, help="default: CMakeLists.txt's project version")
    args = ap.parse_args()
    try:
        target, glibc = build(args.binary, args.out_dir, args.version or project_version())
    except (OSError, ValueError) as e:
        sys.exit(f"build_wheel: {e}")
    print(f"{target} (needs glibc {glibc[0]}.{glibc[1]} or newer)")


if __name__ == "__main__":
    main()
