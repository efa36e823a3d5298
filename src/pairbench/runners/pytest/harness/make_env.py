"""Make a git ref's own environment in its worktree and install the project there (`pytest --git`).

Run by the build command in the worktree, with the interpreter the variant is built from:

    python make_env.py DIR [PIP ARGS...]

makes a virtual environment DIR (without pip of its own) that sees that interpreter's packages
(pytest, the project's dependencies, pip itself; a virtual environment's too, which a
`--system-site-packages` environment would not) behind its own site-packages, then installs the
worktree's project into it with `pip install --no-deps .`: the ref's version shadows any other
installed copy. Like the other files here, it imports nothing of pairbench.
"""

import os
import subprocess
import sys
import venv

BASE_PTH = "_pairbench_base.pth"


def site_dirs():
    """The site-packages folders this interpreter imports from, in its order."""
    return [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages") and os.path.isdir(p)]


def main(argv):
    target = argv[1] if len(argv) > 1 else ".pairbench-env"
    seen = site_dirs()
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt", clear=True).create(target)
    python = os.path.join(target, "Scripts" if os.name == "nt" else "bin", "python")
    own = subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  text=True).strip()
    with open(os.path.join(own, BASE_PTH), "w", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in seen))
    print("environment %s sees %s" % (target, ", ".join(seen) or "no other packages"), flush=True)
    pip = [python, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", *argv[2:], "."]
    print("$ " + " ".join(pip), flush=True)
    return subprocess.call(pip)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
