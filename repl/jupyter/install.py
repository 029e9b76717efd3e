"""Installs the Jupyter kernelspec `ag` (make install-kernel runs this).

usage: python3 install.py AG_PROGRAM [--prefix DIR]

Without --prefix: into the user's Jupyter data directory (jupyter --data-dir,
or $JUPYTER_DATA_DIR); with it: DIR/share/jupyter/kernels/ag, as `jupyter
kernelspec install --prefix` does (found through sys.prefix, or
JUPYTER_PATH=DIR/share/jupyter). kernel.json here is the template: the
Python that runs this script (it has ipykernel) runs the kernel, and $AG in
its environment names the ag program, by absolute path.
"""
import json
import os
import shutil
import sys


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--prefix"):
        sys.exit("usage: install.py AG_PROGRAM [--prefix DIR]")
    try:
        import ipykernel  # noqa: F401  (the kernel needs it: fail here, not at first use)
        from jupyter_core.paths import jupyter_data_dir
    except ImportError as e:
        sys.exit("make install-kernel needs Python's ipykernel (%s): "
                 "apt-get install python3-ipykernel, or pip install ipykernel" % e)
    program = os.path.abspath(argv[1])
    if not os.access(program, os.X_OK):
        sys.exit("install.py: %s is not an executable ag" % program)
    data = (os.path.join(argv[3], "share", "jupyter") if len(argv) == 4 else jupyter_data_dir())
    target = os.path.join(os.path.abspath(data), "kernels", "ag")
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "kernel.json")) as f:
        spec = json.load(f)
    spec["argv"] = [sys.executable, os.path.join(target, "ag_kernel.py"), "-f",
                    "{connection_file}"]
    # (PYDEVD_...: ipykernel 6 loads debugpy, which warns about frozen modules on stderr)
    spec["env"] = {"AG": program, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    os.makedirs(target, exist_ok=True)
    shutil.copyfile(os.path.join(here, "ag_kernel.py"), os.path.join(target, "ag_kernel.py"))
    with open(os.path.join(target, "kernel.json.tmp"), "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(target, "kernel.json.tmp"), os.path.join(target, "kernel.json"))
    print("installed the Jupyter kernel 'ag' in %s (it runs %s)" % (target, program))


if __name__ == "__main__":
    main(sys.argv)
