"""Pack installed distributions back into wheel files, for offline bundle builds in tests."""

from __future__ import annotations

import importlib.metadata
import zipfile
from pathlib import Path

# What `import vxp` and `import cueboard` need, pydantic_core's binary included.
RUNTIME_CORE = (
    "pydantic",
    "pydantic_core",
    "typing_extensions",
    "annotated_types",
    "typing_inspection",
)
_STAMP = (1980, 1, 1, 0, 0, 0)


def wheel_file_name(dist: importlib.metadata.Distribution) -> str:
    tags = [
        line.partition(":")[2].strip().split("-")
        for line in (dist.read_text("WHEEL") or "").splitlines()
        if line.startswith("Tag:")
    ]
    py, abi, plat = (".".join(sorted({tag[i] for tag in tags})) for i in range(3))
    name = dist.metadata["Name"].replace("-", "_")
    return f"{name}-{dist.version}-{py}-{abi}-{plat}.whl"


def repack(name: str, out: Path) -> Path:
    dist = importlib.metadata.distribution(name)
    path = out / wheel_file_name(dist)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(dist.files or [], key=str):
            if file.parts[0] == ".." or "__pycache__" in file.parts:
                continue
            info = zipfile.ZipInfo(file.as_posix(), _STAMP)
            archive.writestr(info, Path(str(dist.locate_file(file))).read_bytes())
    return path
