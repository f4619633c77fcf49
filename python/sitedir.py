"""Where the cordon module goes for PREFIX: run by ./configure.

    python3 sitedir.py PREFIX

prints the directory this python3 imports pure modules from under PREFIX,
written with ${prefix} where it starts with PREFIX (so that `make
prefix=...` is followed); exits 1, saying why, for a python3 older than
the module needs.  Debian's python3 looks in dist-packages, not in
site-packages: /usr/lib/python3/dist-packages for the /usr prefix (its
deb_system scheme, where Debian's python3-* packages go) and
/usr/local/lib/python3.X/dist-packages for /usr/local (posix_local).
Any other prefix, and any other python3: PREFIX/lib/python3.X/site-packages.
"""
import sys
import sysconfig

MIN = (3, 7)


def sitedir(prefix):
    schemes = sysconfig.get_scheme_names()
    if prefix == "/usr" and "deb_system" in schemes:
        return sysconfig.get_path("purelib", "deb_system",
                                  vars={"base": "/usr"})
    if prefix == "/usr/local" and "posix_local" in schemes:
        # posix_local adds "local" to base itself.
        return sysconfig.get_path("purelib", "posix_local",
                                  vars={"base": "/usr"})
    return sysconfig.get_path("purelib", "posix_prefix",
                              vars={"base": prefix})


def main():
    if sys.version_info < MIN:
        print("python %d.%d is older than %d.%d, which the cordon module "
              "needs" % (sys.version_info[:2] + MIN), file=sys.stderr)
        return 1
    prefix = sys.argv[1].rstrip("/") or "/"
    path = sitedir(prefix)
    if path.startswith(prefix + "/"):
        path = "${prefix}" + path[len(prefix):]
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
