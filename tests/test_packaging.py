"""Every package folder is listed in pyproject.toml (the root-is-package layout needs an explicit list)."""
import pathlib
import tomllib

REPO = pathlib.Path(__file__).resolve().parents[1]


def test_every_package_folder_is_installed():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = set()
    for init in REPO.rglob("__init__.py"):
        parts = init.parent.relative_to(REPO).parts
        if parts and (parts[0] in ("tests", "benchmarks", "docs", "build")
                      or any(p.startswith(".") for p in parts)):
            continue
        found.add(".".join(("mallard",) + parts))
    assert found == listed, f"add to pyproject.toml: {sorted(found - listed)}; remove: {sorted(listed - found)}"
