"""PEP 517 build backend for the pre-commit hook package (pyproject.toml), standard library only.

`pip install .` of this repository (what pre-commit does for a `language: python` hook) builds
stoker_pre_commit-VERSION-py3-none-any.whl: metadata only, `Requires-Dist: stoker==VERSION`, where
VERSION is CMakeLists.txt's project version. pip then installs the stoker wheel, whose binary lands
in the hook environment's bin/. Offline, PIP_FIND_LINKS names a directory holding that wheel.
"""
import base64
import hashlib
import os
import re
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NAME = "stoker_pre_commit"


def _version():
    with open(os.path.join(_ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(stoker\s+VERSION\s+([0-9][0-9A-Za-z.]*)", f.read())
    if not m:
        raise RuntimeError("no `project(stoker VERSION ...)` in CMakeLists.txt")
    return m.group(1)


def _metadata(version):
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: stoker-pre-commit",
        f"Version: {version}",
        "Summary: pre-commit hooks for stoker; installs the stoker wheel of the same version",
        "Requires-Python: >=3.7",
        f"Requires-Dist: stoker=={version}",
        "",
    ])


def _dist_info(version):
    return f"{_NAME}-{version}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    d = os.path.join(metadata_directory, _dist_info(version))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info(version)


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: stoker packaging/pre_commit/backend.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record(arcname, payload):
    digest = base64.urlsafe_b64encode(hashlib.sha256(payload).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(payload)}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    di = _dist_info(version)
    files = [(f"{di}/METADATA", _metadata(version).encode()), (f"{di}/WHEEL", _wheel_file().encode())]
    record = [_record(a, p) for a, p in files] + [f"{di}/RECORD,,"]
    files.append((f"{di}/RECORD", ("\n".join(record) + "\n").encode()))
    name = f"{_NAME}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, payload in files:
            z.writestr(zipfile.ZipInfo(arcname, (1980, 1, 1, 0, 0, 0)), payload)
    return name


def build_sdist(sdist_directory, config_settings=None):
    raise NotImplementedError("the hook package is installed from the repository, not from an sdist")
