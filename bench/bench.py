#!/usr/bin/env python3
"""cordon benchmarks against its peers: `make bench` (never part of make check).

Measures, side by side in one run and as an unprivileged user, and prints a
Markdown table (also written to bench/last-run.md):

  spawn     /bin/true under cordon linux-ns (trace on), cordon --backend floor,
            bubblewrap, firejail, unshare, and bare: medians, ratio to cordon
  through   runs/s with 1, 2 and 8 concurrent clients sharing one trace
            database; lost trace rows and "database is locked" failures
  monitor   CPU (user+sys) of the broker and the helper while a two-process
            CPU-bound payload runs, and while make -j2 builds 200 small C
            files, as % of the same payload's CPU when run bare
  memory    how far past --memory a payload allocating at full speed gets
            before it is killed (max_rss in the result against the cap)
  teardown  removing a workdir of 100,000 files, beside rm -rf of the same
  trace     cordon trace list / show on a trace of 1,000,000 runs
  library   the library path: bench/librun keeps one libcordon config and
            runs /bin/true 1,000 times through cordon_run(): median and p90
            per run, against bubblewrap's CLI median
  cpu       CPU (user+sys) per run of every process a run starts, counted
            from outside: RUSAGE_CHILDREN of this script over client loops
            (what /usr/bin/time sees: processes waited for) and, where perf
            works, perf stat's task-clock of every task; cordon linux-ns
            CLI, the library path, bubblewrap and bare /bin/true, at 1 and
            8 clients
  egress    1 GiB from a loopback server, read by the test payload
            directly on the host and through the --allow-host proxy from
            inside a linux-ns run (CONNECT; the payload's own timing of
            the transfer): MB/s and the ratio (target: proxy >= 0.5x)

Run as root, every measured command drops to uid/gid 65534 (nobody, or the
user BENCH_USER names) with setpriv, and the binaries are copied to a
directory that user can read; run as another user, everything runs as that
user.  firejail refuses nobody and system users, so its row needs
BENCH_USER=<a regular user>.

Peers are measured only when installed (Debian 12):
  apt-get install bubblewrap firejail hyperfine linux-perf
hyperfine (with --export-json) times the spawn rows; without it a small
fork/exec/wait loop in this script does (its own overhead is the same for
every row, so ratios stay fair).

BENCH_QUICK=1 makes a faster, rougher pass (fewer runs, shorter payloads,
100,000-run trace).
"""

import argparse
import json
import os
import platform
import pwd
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
# Who the measured commands run as, when the bench is started as root.
# firejail refuses nobody and every system user: to measure it, name a
# regular user here (BENCH_USER=alice make bench).
BENCH_USER = os.environ.get("BENCH_USER", "nobody")

# How much of everything: (full, quick).
SPAWN_RUNS = 60 if not QUICK else 20
THROUGHPUT_RUNS = 40 if not QUICK else 10   # per client
SPIN_SECONDS = 20 if not QUICK else 5
MAKE_FILES = 200 if not QUICK else 60
TEARDOWN_FILES = 100000 if not QUICK else 20000
TRACE_RUNS = 1000000 if not QUICK else 100000
LIB_RUNS = 1000 if not QUICK else 200
CPU_RUNS = 200 if not QUICK else 40         # per row, split among clients
MEMORY_CAP_MB = 256


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


class Env:
    """Where the copied binaries, the traces and nobody's home live."""

    def __init__(self, builddir):
        self.root = tempfile.mkdtemp(prefix="cordon-bench-", dir="/tmp")
        os.chmod(self.root, 0o755)
        self.bin = os.path.join(self.root, "bin")
        self.home = os.path.join(self.root, "home")
        os.mkdir(self.bin, 0o755)
        os.mkdir(self.home, 0o700)
        # The workdirs go where a login session's would: XDG_RUNTIME_DIR
        # is a tmpfs (/run/user/UID); /dev/shm stands in for it.
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else self.root
        self.run = tempfile.mkdtemp(prefix="cordon-bench-run-", dir=shm)
        # Real ELF files: cordon links libcordon statically (noinst), the
        # helper and the payload have no libtool wrapper.
        for name, src in (("cordon", "cordon"), ("cordon-helper",
                          "cordon-helper"), ("payload", "tests/payload"),
                          ("librun", "bench/librun")):
            if name == "librun" and not os.path.exists(
                    os.path.join(builddir, src)):
                continue    # only make bench builds it
            dst = os.path.join(self.bin, name)
            shutil.copy(os.path.join(builddir, src), dst)
            os.chmod(dst, 0o755)
        self.drop = os.geteuid() == 0
        pw = pwd.getpwnam(BENCH_USER) if self.drop else pwd.getpwuid(
            os.getuid())
        self.uid, self.gid, self.user = pw.pw_uid, pw.pw_gid, pw.pw_name
        if self.drop:
            for d in (self.home, self.run):
                os.chown(d, self.uid, self.gid)
        self.cordon = os.path.join(self.bin, "cordon")
        self.payload = os.path.join(self.bin, "payload")
        self.librun = os.path.join(self.bin, "librun")
        # Medians a later section compares with (bubblewrap's CLI latency).
        self.medians = {}
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": self.home,
            "XDG_RUNTIME_DIR": self.run,
            "XDG_STATE_HOME": os.path.join(self.home, "state"),
            "CORDON_HELPER": os.path.join(self.bin, "cordon-helper"),
            "LC_ALL": "C",
        }

    def argv(self, argv):
        """argv as the unprivileged user, with our clean environment."""
        pre = []
        if self.drop:
            pre = ["setpriv", "--reuid", str(self.uid), "--regid",
                   str(self.gid), "--clear-groups"]
        return pre + ["env", "-i"] + ["%s=%s" % kv for kv in
                                      sorted(self.env.items())] + list(argv)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def mkdir(self, *parts):
        """A directory in the user's home, so the user can remove it."""
        p = os.path.join(self.home, *parts)
        os.makedirs(p, exist_ok=True)
        if self.drop:
            os.chown(p, self.uid, self.gid)
        return p

    def trace(self, name):
        return os.path.join(self.home, name + ".db")

    def popen(self, argv, **kw):
        return subprocess.Popen(self.argv(argv), cwd=kw.pop("cwd", self.home),
                                **kw)

    def call(self, argv, **kw):
        return subprocess.run(self.argv(argv), cwd=kw.pop("cwd", self.home),
                              **kw)

    def cleanup(self):
        for d in (self.root, self.run):
            subprocess.run(["rm", "-rf", "--one-file-system", d])


def fmt_ms(s):
    return "%.1f ms" % (s * 1000) if s < 10 else "%.1f s" % s


def ratio(x, ref):
    return "%.2f" % (x / ref) if ref else "-"


# ---- spawn latency --------------------------------------------------------

def spawn_commands(e):
    """(name, setup note, argv) of every contender that is installed."""
    tr = ["--trace", e.trace("spawn")]
    cmds = [
        ("cordon linux-ns", "trace on, defaults",
         [e.cordon, "run", "--backend", "linux-ns"] + tr + ["--", "/bin/true"]),
        ("cordon floor", "trace on, --backend floor",
         [e.cordon, "run", "--backend", "floor"] + tr + ["--", "/bin/true"]),
        # The required controls' check (issue 20: no PROBE helper).
        ("cordon linux-ns --require", "trace on, --require "
         "network-isolation,memory",
         [e.cordon, "run", "--backend", "linux-ns", "--require",
          "network-isolation,memory"] + tr + ["--", "/bin/true"]),
    ]
    if shutil.which("bwrap"):
        cmds.append(("bubblewrap", "`bwrap --unshare-all --die-with-parent "
                     "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp`",
                     ["bwrap", "--unshare-all", "--die-with-parent",
                      "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                      "/proc", "--tmpfs", "/tmp", "/bin/true"]))
    if shutil.which("firejail"):
        cmds.append(("firejail", "`firejail --quiet --noprofile --net=none`",
                     ["firejail", "--quiet", "--noprofile", "--net=none",
                      "/bin/true"]))
    if shutil.which("unshare"):
        cmds.append(("unshare", "`unshare -Urmpinuf --mount-proc`",
                     ["unshare", "-Urmpinuf", "--mount-proc", "/bin/true"]))
    cmds.append(("/bin/true", "bare", ["/bin/true"]))
    return cmds


def usable(e, argv):
    r = e.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return r.returncode == 0, r.stderr.decode(errors="replace").strip()


def time_loop(e, cmds, runs):
    """Fallback without hyperfine: interleaved fork/exec/wait timings."""
    times = {name: [] for name, _, _ in cmds}
    for i in range(runs + 3):
        for name, _, argv in cmds:
            full = e.argv(argv)
            t0 = time.perf_counter()
            subprocess.run(full, cwd=e.home, stdout=subprocess.DEVNULL)
            if i >= 3:
                times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def bench_spawn(e, rows, notes):
    cmds = []
    for name, setup, argv in spawn_commands(e):
        ok, err = usable(e, argv)
        if ok:
            cmds.append((name, setup, argv))
        elif name == "firejail" and (e.uid < 1000 or e.uid == 65534):
            notes.append("firejail left out: it refuses %s; run with "
                         "BENCH_USER=<a regular user> to measure it" % e.user)
        else:
            notes.append("%s left out: it failed here (%s)" % (name,
                         err.splitlines()[-1] if err else "non-zero exit"))
    for peer, pkg in (("bwrap", "bubblewrap"), ("firejail", "firejail")):
        if not shutil.which(peer):
            notes.append("%s not installed (apt-get install %s)" % (peer, pkg))
    hf = shutil.which("hyperfine")
    if hf:
        # Rounds of every command in turn, so a machine whose load drifts
        # during the run weighs on all rows alike; hyperfine itself runs
        # unprivileged, so the drop is not timed.
        rounds, times = 4, {name: [] for name, _, _ in cmds}
        out = e.path("home", "spawn.json")
        for _ in range(rounds):
            argv = [hf, "-N", "--warmup", "3", "--runs",
                    str(SPAWN_RUNS // rounds), "--export-json", out,
                    "--style", "none"]
            for name, _, a in cmds:
                argv += ["-n", name, " ".join(a)]
            e.call(argv, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
            with open(out) as f:
                for r in json.load(f)["results"]:
                    times[r["command"]] += r["times"]
        med = {k: statistics.median(v) for k, v in times.items()}
        how = ("hyperfine -N, %d runs each in %d interleaved rounds"
               % (SPAWN_RUNS // rounds * rounds, rounds))
    else:
        notes.append("hyperfine not installed (apt-get install hyperfine): "
                     "timed with a fork/exec loop, which adds its own cost")
        med = time_loop(e, cmds, SPAWN_RUNS)
        how = "fork/exec loop, %d runs each" % SPAWN_RUNS
    e.medians.update(med)
    ref = med.get("cordon linux-ns")
    rows.append("")
    rows.append("### Spawn latency of `/bin/true` (%s)" % how)
    rows.append("")
    rows.append("| sandbox | setup | median | ratio to cordon linux-ns |")
    rows.append("| --- | --- | ---: | ---: |")
    for name, setup, _ in cmds:
        rows.append("| %s | %s | %s | %s |" % (name, setup, fmt_ms(med[name]),
                    ratio(med[name], ref)))
    if "bubblewrap" in med and ref:
        rows.append("")
        rows.append("cordon linux-ns / bubblewrap = **%.2f** (target <= 0.80)"
                    % (ref / med["bubblewrap"]))


# ---- throughput -----------------------------------------------------------

def trace_counts(db):
    c = sqlite3.connect(db)
    try:
        runs = c.execute("SELECT count(*) FROM runs WHERE outcome = 'exited'"
                         " AND exit_code = 0").fetchone()[0]
        # A run whose create, exit or teardown event is missing lost rows.
        partial = c.execute(
            "SELECT count(*) FROM runs r WHERE (SELECT count(DISTINCT kind)"
            " FROM events e WHERE e.run_id = r.run_id AND kind IN"
            " ('create', 'exit', 'teardown')) < 3").fetchone()[0]
        return runs, partial
    finally:
        c.close()


def bench_throughput(e, rows, notes):
    rows.append("")
    rows.append("### Throughput: `/bin/true` runs, clients sharing one trace "
                "(%d runs per client)" % THROUGHPUT_RUNS)
    rows.append("")
    rows.append("| clients | runs/s | lost trace rows | \"database is locked\" "
                "| other failures |")
    rows.append("| ---: | ---: | ---: | ---: | ---: |")
    for clients in (1, 2, 8):
        db = e.trace("through%d" % clients)
        # One client loop per process; each run is a fresh cordon.
        loop = ('i=0; while [ $i -lt %d ]; do %s run --trace %s -- /bin/true'
                ' || echo "run failed: $?" >&2; i=$((i+1)); done'
                % (THROUGHPUT_RUNS, e.cordon, db))
        # A fresh trace: the clients also race to create its schema.
        t0 = time.perf_counter()
        procs = [e.popen(["sh", "-c", loop], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE) for _ in range(clients)]
        errs = [p.communicate()[1].decode(errors="replace") for p in procs]
        wall = time.perf_counter() - t0
        err = "\n".join(errs)
        locked = err.count("database is locked")
        failed = err.count("run failed")
        total = clients * THROUGHPUT_RUNS
        runs, partial = trace_counts(db)
        lost = total - failed - runs + partial
        rows.append("| %d | %.1f | %d | %d | %d |" % (clients, total / wall,
                    lost, locked, failed))
        if failed:
            notes.append("throughput, %d clients: %d runs failed: %s" % (
                clients, failed, err.strip().splitlines()[0]))


# ---- monitor cost ---------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    """utime+stime of pid itself (not its children), in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def run_sampled(e, argv, stdin_data=None):
    """Runs cordon argv; samples its own CPU and its helper's until exit."""
    p = e.popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
    if stdin_data is not None:
        p.stdin.write(stdin_data)
    p.stdin.close()
    broker = helper = 0.0
    hpid = None
    while p.poll() is None:
        b = proc_cpu(p.pid)
        if b is not None:
            broker = b
        if hpid is None:
            kids = children(p.pid)
            hpid = kids[0] if kids else None
        if hpid is not None:
            h = proc_cpu(hpid)
            if h is not None:
                helper = h
        time.sleep(0.1)
    out = p.stdout.read()
    p.wait()
    return broker, helper, out


def bare_cpu(e, argv, stdin_data=None, cwd=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    e.call(argv, input=stdin_data, stdout=subprocess.DEVNULL, cwd=cwd,
           check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                 before.ru_stime)


def make_tree(e, n):
    """n small C files and a Makefile, as a tar archive for stdin."""
    src = e.mkdir("mk")
    objs = []
    for i in range(n):
        with open(os.path.join(src, "f%d.c" % i), "w") as f:
            f.write("int f%d(int x);\nint f%d(int x)\n{\n\tint s = 0;\n"
                    "\tfor (int i = 0; i < x; i++)\n\t\ts += i * %d;\n"
                    "\treturn s;\n}\n" % (i, i, i))
        objs.append("f%d.o" % i)
    with open(os.path.join(src, "Makefile"), "w") as f:
        f.write("all: %s\n%%.o: %%.c\n\tcc -O2 -c -o $@ $<\n" % " ".join(objs))
    return subprocess.run(["tar", "-C", src, "-cf", "-", "."],
                          stdout=subprocess.PIPE, check=True).stdout


def bench_monitor(e, rows, notes):
    feed = "cat > p && chmod +x p && exec ./p \"$@\""
    with open(e.payload, "rb") as f:
        payload = f.read()
    tar = make_tree(e, MAKE_FILES)
    wall = str(SPIN_SECONDS * 3 + 60)
    loads = [
        ("two CPU-bound processes, %d s each" % SPIN_SECONDS,
         ["sh", "-c", feed, "p", "spinfork", "2", str(SPIN_SECONDS)], payload),
        ("make -j2 of %d small C files" % MAKE_FILES,
         ["sh", "-c", "tar xf - && make -s -j2"], tar),
    ]
    rows.append("")
    rows.append("### Monitor cost (broker + helper CPU, linux-ns)")
    rows.append("")
    rows.append("| payload | payload CPU bare | broker CPU | helper CPU | "
                "monitor cost |")
    rows.append("| --- | ---: | ---: | ---: | ---: |")
    for name, argv, data in loads:
        wd = e.mkdir("bare")
        bare = bare_cpu(e, argv, data, cwd=wd)
        subprocess.run(["rm", "-rf", wd])
        b, h, out = run_sampled(e, [e.cordon, "run", "--json", "--backend",
                                    "linux-ns", "--trace", e.trace("monitor"),
                                    "--cpu", wall, "--wall", wall, "--"] +
                                argv, data)
        try:
            res = json.loads(out.decode().strip().splitlines()[-1])
            if res.get("outcome") != "exited" or res.get("exit_code") != 0:
                notes.append("monitor, %s: run ended %s" % (name,
                             res.get("outcome")))
        except (ValueError, IndexError):
            notes.append("monitor, %s: no result record" % name)
        rows.append("| %s | %.2f s | %.3f s | %.3f s | %.2f %% |" % (
            name, bare, b, h, 100 * (b + h) / bare if bare else 0))
    notes.append("monitor cost: CPU of the cordon and cordon-helper processes"
                 " themselves (/proc/PID/stat, sampled every 0.1 s, so the "
                 "last 0.1 s can be missed), against the payload's CPU when "
                 "run bare")


# ---- memory-cap overshoot -------------------------------------------------

def bench_memory(e, rows, notes):
    feed = "cat > p && chmod +x p && exec ./p \"$@\""
    with open(e.payload, "rb") as f:
        payload = f.read()
    rows.append("")
    rows.append("### Memory cap overshoot (payload touching pages as fast as "
                "it can)")
    rows.append("")
    rows.append("| backend | --memory | killed at max_rss | overshoot | "
                "outcome |")
    rows.append("| --- | ---: | ---: | ---: | --- |")
    for backend in ("linux-ns", "floor"):
        r = e.call([e.cordon, "run", "--json", "--backend", backend,
                    "--trace", e.trace("memory"), "--memory",
                    "%dM" % MEMORY_CAP_MB, "--", "sh", "-c", feed, "p",
                    "alloc", str(MEMORY_CAP_MB * 8)],
                   input=payload, stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL)
        try:
            res = json.loads(r.stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            notes.append("memory, %s: no result record" % backend)
            continue
        rss = res.get("max_rss_bytes", 0) / 2**20
        outcome = res.get("outcome")
        if outcome == "cap_hit":
            outcome += " (%s)" % res.get("cap")
        rows.append("| %s | %d MiB | %.1f MiB | %.1f MiB | %s |" % (
            backend, MEMORY_CAP_MB, rss, rss - MEMORY_CAP_MB, outcome))


# ---- egress proxy throughput ----------------------------------------------

EGRESS_BYTES = 1 << 30


def egress_server():
    """A loopback server sending EGRESS_BYTES to each connection."""
    import socket
    import threading
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    chunk = b"\0" * (1 << 20)

    def serve():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            try:
                for _ in range(EGRESS_BYTES // len(chunk)):
                    c.sendall(chunk)
            except OSError:
                pass
            c.close()
    threading.Thread(target=serve, daemon=True).start()
    return s


def egress_fetch(e, argv, env=()):
    """(bytes, seconds) the payload printed, or None."""
    full = e.argv(argv)
    at = full.index("env") + 2      # after "env -i"
    full = full[:at] + list(env) + full[at:]
    r = subprocess.run(full, cwd=e.home, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    for line in r.stdout.decode(errors="replace").splitlines():
        w = line.split()
        if len(w) == 4 and w[0] == "bytes":
            return int(w[1]), float(w[3])
    log("egress: %s" % r.stderr.decode(errors="replace").strip()[-300:])
    return None


def bench_egress(e, rows, notes):
    srv = egress_server()
    port = str(srv.getsockname()[1])
    hosts = e.path("egress-hosts")
    with open(hosts, "w") as f:
        f.write("127.0.0.1 bench.test\n")
    os.chmod(hosts, 0o644)
    runs = 3 if not QUICK else 1
    direct, proxied = [], []
    for _ in range(runs):
        d = egress_fetch(e, [e.payload, "fetch", "direct", "127.0.0.1", port])
        p = egress_fetch(e, [e.cordon, "run", "--backend", "linux-ns",
                             "--trace", e.trace("egress"), "--ro-bind",
                             e.payload + ":/srv/payload", "--allow-host",
                             "bench.test:" + port, "--allow-host",
                             "127.0.0.1", "--", "/srv/payload", "fetch",
                             "connect", "bench.test", port],
                         ["CORDON_TEST_HOSTS=" + hosts])
        for got, into in ((d, direct), (p, proxied)):
            if got and got[0] == EGRESS_BYTES:
                into.append(got[0] / got[1] / 1e6)
    srv.close()
    rows.append("")
    rows.append("### Egress proxy: 1 GiB from a loopback server (median of "
                "%d)" % runs)
    rows.append("")
    rows.append("| path | MB/s | ratio to direct |")
    rows.append("| --- | ---: | ---: |")
    if not direct or not proxied:
        notes.append("egress: a transfer did not complete (see stderr)")
        return
    dm, pm = statistics.median(direct), statistics.median(proxied)
    rows.append("| direct (host, payload reads the server) | %.0f | 1.00 |" %
                dm)
    rows.append("| through the --allow-host proxy (linux-ns, CONNECT) | "
                "%.0f | %s |" % (pm, ratio(pm, dm)))


# ---- teardown -------------------------------------------------------------

def trace_events(db, run_id):
    c = sqlite3.connect(db)
    try:
        return dict(c.execute("SELECT kind, ts_ms FROM events WHERE run_id = ?"
                              , (run_id,)).fetchall())
    finally:
        c.close()


def bench_teardown(e, rows, notes):
    feed = "cat > p && chmod +x p && exec ./p \"$@\""
    with open(e.payload, "rb") as f:
        payload = f.read()
    n = str(TEARDOWN_FILES)
    db = e.trace("teardown")
    r = e.call([e.cordon, "run", "--json", "--backend", "linux-ns", "--trace",
                db, "--", "sh", "-c", feed, "p", "files", n], input=payload,
               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        res = json.loads(r.stdout.decode().strip().splitlines()[-1])
        ev = trace_events(db, res["run_id"])
        cordon = (ev["teardown"] - ev["exit"]) / 1000.0
        ok = res.get("workdir_removed") is True and res.get("exit_code") == 0
    except (ValueError, IndexError, KeyError):
        notes.append("teardown: no result record (%s)" %
                     r.stderr.decode(errors="replace").strip())
        return
    # The same tree, made by the same payload on the same file system (the
    # runtime dir, where the workdirs are), removed by rm -rf.
    d = os.path.join(e.run, "rmtree")
    os.mkdir(d)
    if e.drop:
        os.chown(d, e.uid, e.gid)
    e.call([e.payload, "files", n], cwd=d, check=True)
    t0 = time.perf_counter()
    e.call(["rm", "-rf", d], check=True)
    rm = time.perf_counter() - t0
    rows.append("")
    rows.append("### Teardown of a workdir holding %d files" % TEARDOWN_FILES)
    rows.append("")
    rows.append("| remover | time | ratio to rm -rf |")
    rows.append("| --- | ---: | ---: |")
    rows.append("| cordon (exit to teardown event) | %s | %s |" % (
        fmt_ms(cordon), ratio(cordon, rm)))
    rows.append("| `rm -rf` | %s | 1.00 |" % fmt_ms(rm))
    if not ok:
        notes.append("teardown: the run did not end cleanly: %s" %
                     json.dumps(res))
    notes.append("teardown: cordon's time is the trace's exit -> teardown "
                 "event timestamps (ms), which holds the helper's rmtree "
                 "and one message each way; rm -rf includes its own exec")


# ---- trace of a million runs ----------------------------------------------

def fill_trace(db, n):
    """Clones the one real run in db into n runs, with their events."""
    c = sqlite3.connect(db)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=OFF")
    cols = [r[1] for r in c.execute("PRAGMA table_info(runs)")]
    row = c.execute("SELECT * FROM runs").fetchone()
    events = c.execute("SELECT ts_ms, kind, detail FROM events").fetchall()
    rid, created = cols.index("run_id"), cols.index("created_ms")
    base = row[created] - n * 10
    q = "INSERT INTO runs (%s) VALUES (%s)" % (", ".join(cols),
                                               ", ".join("?" * len(cols)))
    qe = "INSERT INTO events (run_id, ts_ms, kind, detail) VALUES (?,?,?,?)"
    batch = 20000
    with c:
        for start in range(0, n - 1, batch):
            rs, es = [], []
            for i in range(start, min(start + batch, n - 1)):
                v = list(row)
                v[rid] = "%032x" % (i + 1)
                v[created] = base + i * 10
                rs.append(v)
                for ts, kind, detail in events:
                    es.append((v[rid], base + i * 10, kind, detail))
            c.executemany(q, rs)
            c.executemany(qe, es)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return row[rid]


def bench_trace(e, rows, notes):
    db = e.trace("million")
    e.call([e.cordon, "run", "--trace", db, "--", "/bin/true"], check=True,
           stdout=subprocess.DEVNULL)
    t0 = time.perf_counter()
    rid = fill_trace(db, TRACE_RUNS)
    gen = time.perf_counter() - t0
    if e.drop:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.chown(db + suffix, e.uid, e.gid)
    cmds = [
        ("cordon trace list", [e.cordon, "trace", "list", "--trace", db]),
        ("cordon trace list --limit 1000", [e.cordon, "trace", "list",
                                            "--limit", "1000", "--trace", db]),
        ("cordon trace show ID", [e.cordon, "trace", "show", rid, "--trace",
                                  db]),
        ("cordon version (baseline)", [e.cordon, "version"]),
    ]
    med = {}
    for name, argv in cmds:
        ts = []
        for i in range(12 if not QUICK else 6):
            t0 = time.perf_counter()
            e.call(argv, stdout=subprocess.DEVNULL, check=True)
            if i >= 2:
                ts.append(time.perf_counter() - t0)
        med[name] = statistics.median(ts)
    rows.append("")
    rows.append("### Trace of %d runs (%d events; generated in %.0f s)" % (
        TRACE_RUNS, TRACE_RUNS * 5, gen))
    rows.append("")
    rows.append("| command | median |")
    rows.append("| --- | ---: |")
    for name, _ in cmds:
        rows.append("| %s | %s |" % (name, fmt_ms(med[name])))
    notes.append("trace: medians of 10 runs (fork/exec from this script, "
                 "which adds the same ~1-2 ms to each row)")


# ---- the library path ---------------------------------------------------

def bwrap_argv():
    return ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/",
            "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "/bin/true"]


def bwrap_median(e, notes):
    """bubblewrap's CLI median: from the spawn section, else timed here."""
    if "bubblewrap" in e.medians:
        return e.medians["bubblewrap"], "the spawn section above"
    if not shutil.which("bwrap"):
        return None, None
    ok, err = usable(e, bwrap_argv())
    if not ok:
        notes.append("library: bubblewrap failed here (%s)" % err)
        return None, None
    hf = shutil.which("hyperfine")
    if hf:
        out = e.path("home", "bwrap.json")
        e.call([hf, "-N", "--warmup", "3", "--runs", str(SPAWN_RUNS),
                "--export-json", out, "--style", "none", "-n", "bubblewrap",
                " ".join(bwrap_argv())], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            times = json.load(f)["results"][0]["times"]
        return statistics.median(times), "hyperfine -N, %d runs" % SPAWN_RUNS
    med = time_loop(e, [("bubblewrap", "", bwrap_argv())], SPAWN_RUNS)
    return med["bubblewrap"], "a fork/exec loop, %d runs" % SPAWN_RUNS


def run_librun(e, n, trace, session=False):
    """One librun process (-s: through a session); its JSON line, or None
    with stderr."""
    r = e.call([e.librun] + (["-s"] if session else []) +
               ["-n", str(n), "-t", trace, "--", "/bin/true"],
               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        return json.loads(r.stdout.decode().strip().splitlines()[-1]), ""
    except (ValueError, IndexError):
        return None, r.stderr.decode(errors="replace").strip()


def bench_library(e, rows, notes):
    if not os.path.exists(e.librun):
        notes.append("library: bench/librun not built (make bench builds it)")
        return
    db = e.trace("library")
    res, err = run_librun(e, LIB_RUNS, db)
    if res is None:
        notes.append("library: librun gave no result (%s)" % err)
        return
    runs, partial = trace_counts(db)
    # librun's 3 warm-up runs are in the trace too.
    lost = LIB_RUNS + 3 - res["failed"] - runs + partial
    # The same through one cordon_session (trace and policy kept open).
    sdb = e.trace("session")
    sres, err = run_librun(e, LIB_RUNS, sdb, session=True)
    if sres is None:
        notes.append("library: librun -s gave no result (%s)" % err)
    else:
        sruns, spartial = trace_counts(sdb)
        slost = LIB_RUNS + 3 - sres["failed"] - sruns + spartial
    ref, how = bwrap_median(e, notes)
    rows.append("")
    rows.append("### Library path: one process, one libcordon config, "
                "`/bin/true` %d times (linux-ns, trace on)" % LIB_RUNS)
    rows.append("")
    rows.append("| path | median | p90 | mean | CPU/run in-process | "
                "CPU/run helper+sandbox | failed | lost trace rows |")
    rows.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows.append("| cordon_run() (bench/librun) | %.1f ms | %.1f ms | %.1f ms "
                "| %.1f ms | %.1f ms | %d | %d |" % (
                    res["median_ms"], res["p90_ms"], res["mean_ms"],
                    res["cpu_self_ms"], res["cpu_children_ms"], res["failed"],
                    lost))
    if sres is not None:
        rows.append("| cordon_session_run() (bench/librun -s) | %.1f ms | "
                    "%.1f ms | %.1f ms | %.1f ms | %.1f ms | %d | %d |" % (
                        sres["median_ms"], sres["p90_ms"], sres["mean_ms"],
                        sres["cpu_self_ms"], sres["cpu_children_ms"],
                        sres["failed"], slost))
    if ref:
        rows.append("| bubblewrap CLI (%s) | %s | | | | | | |" % (
            how, fmt_ms(ref)))
        rows.append("")
        rows.append("library median / bubblewrap CLI = **%.2f** (target <= "
                    "0.60)" % (res["median_ms"] / 1000.0 / ref))
        if sres is not None:
            rows.append("")
            rows.append("session median / bubblewrap CLI = **%.2f** (target "
                        "<= 0.60)" % (sres["median_ms"] / 1000.0 / ref))
    notes.append("library: latency from librun's own clock around each "
                 "cordon_run() (no exec of a CLI, no fork from this script); "
                 "its CPU split is getrusage SELF (the library) and CHILDREN "
                 "(helper, init and payload, as waited for)")


# ---- CPU per run, counted from outside ------------------------------------

def perf_usable():
    """Whether perf stat can count task-clock here (not in every VM)."""
    if not shutil.which("perf"):
        return False
    r = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", "--",
                        "true"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    return r.returncode == 0 and b"task-clock" in r.stderr


def perf_task_ms(path):
    """The task-clock total (ms) a perf stat -x, -o path wrote."""
    with open(path) as f:
        for line in f:
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("task-clock"):
                return float(fields[0])
    return None


def clients_cpu(e, argvs, use_perf=False):
    """Runs argvs side by side: (CPU s of every process waited for, wall s,
    outputs, errs), then, with use_perf, again under perf stat for the CPU
    of every task started (else None): perf's own CPU would count in the
    first figure."""
    cpu, _, wall, out, err = clients_run(e, argvs, False)
    every = clients_run(e, argvs, True)[1] if use_perf else None
    return cpu, every, wall, out, err


def clients_run(e, argvs, use_perf):
    outs = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    procs = []
    for i, a in enumerate(argvs):
        full = e.argv(a)
        if use_perf:
            outs.append(e.path("perf%d.txt" % i))
            full = ["perf", "stat", "-x,", "-e", "task-clock", "-o",
                    outs[-1], "--"] + full
        procs.append(subprocess.Popen(full, cwd=e.home,
                                      stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE))
    done = [p.communicate() for p in procs]
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    every = None
    if use_perf:
        ms = [perf_task_ms(o) for o in outs]
        every = sum(ms) / 1000.0 if None not in ms else None
    return (cpu, every, wall, [o.decode(errors="replace") for o, _ in done],
            [x.decode(errors="replace") for _, x in done])


def per_run(x, n):
    return x / n if x is not None else None


def cpu_loop(e, argv, clients, per_client, use_perf):
    """clients shell loops of argv: (CPU s per run waited for, every task,
    wall s, failures)."""
    loop = ('i=0; while [ $i -lt %d ]; do %s >/dev/null || echo "run '
            'failed: $?" >&2; i=$((i+1)); done' % (per_client,
                                                   " ".join(argv)))
    n = clients * per_client
    cpu, every, wall, _, errs = clients_cpu(e, [["sh", "-c", loop]] *
                                            clients, use_perf)
    return (cpu / n, per_run(every, n), wall,
            "\n".join(errs).count("run failed"))


def cpu_librun(e, clients, per_client, db, use_perf):
    """clients librun processes, the same figures."""
    argv = [e.librun, "-w", "0", "-n", str(per_client), "-t", db, "--",
            "/bin/true"]
    n = clients * per_client
    cpu, every, wall, outs, _ = clients_cpu(e, [argv] * clients, use_perf)
    failed = 0
    for out in outs:
        try:
            failed += json.loads(out.strip().splitlines()[-1])["failed"]
        except (ValueError, IndexError, KeyError):
            failed += per_client
    return cpu / n, per_run(every, n), wall, failed


def bench_cpu(e, rows, notes):
    contenders = [("cordon linux-ns (CLI)", [e.cordon, "run", "--backend",
                   "linux-ns", "--trace", e.trace("cpu"), "--",
                   "/bin/true"])]
    if os.path.exists(e.librun):
        contenders.append(("cordon library (librun)", None))
    if shutil.which("bwrap") and usable(e, bwrap_argv())[0]:
        contenders.append(("bubblewrap", bwrap_argv()))
    contenders.append(("/bin/true bare", ["/bin/true"]))
    rows.append("")
    rows.append("### CPU per run, every process counted from outside "
                "(%d runs per row, split among the clients)" % CPU_RUNS)
    rows.append("")
    use_perf = perf_usable()
    rows.append("| contender | clients | CPU/run, processes waited for | "
                "ratio to bubblewrap | CPU/run, every task (perf stat) | "
                "ratio to bubblewrap | runs/s | failed |")
    rows.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    got = {}
    for clients in (1, 8):
        per = max(1, CPU_RUNS // clients)
        for name, argv in contenders:
            if argv is None:
                r = cpu_librun(e, clients, per, e.trace("cpulib"), use_perf)
            else:
                r = cpu_loop(e, argv, clients, per, use_perf)
            got[(name, clients)] = r + (clients * per,)
        ref = got.get(("bubblewrap", clients))
        for name, _ in contenders:
            cpu, every, wall, failed, total = got[(name, clients)]
            rows.append("| %s | %d | %.1f ms | %s | %s | %s | %.1f | %d |" % (
                name, clients, cpu * 1000, ratio(cpu, ref[0]) if ref else
                "-", "%.1f ms" % (every * 1000) if every is not None else
                "-", ratio(every, ref[1]) if ref and every is not None and
                ref[1] else "-", total / wall, failed))
    if not use_perf:
        notes.append("cpu: perf stat not usable here, so only the processes"
                     " waited for are counted (apt-get install linux-perf)")
    notes.append("cpu: user+sys of every process waited for (RUSAGE_CHILDREN"
                 " of this script around the client loops), divided by the "
                 "runs; each CLI row also pays its shell loop's fork and "
                 "the exec of the command (the bare /bin/true row is that "
                 "floor); the library row pays no CLI exec.  A process "
                 "nobody waits for is missing from the first column: "
                 "bubblewrap's parent exits without reaping its pid 1, "
                 "which perf stat (every task of the tree, reaped or not) "
                 "still counts, so compare the perf column")


# ---- main -----------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--out", default="bench/last-run.md")
    ap.add_argument("--only", default="spawn,throughput,monitor,memory,"
                    "teardown,trace,library,cpu,egress")
    a = ap.parse_args()
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        sys.exit("bench: setpriv (util-linux) is needed to drop to nobody")
    e = Env(a.builddir)
    rows, notes = [], []
    steps = {"spawn": bench_spawn, "throughput": bench_throughput,
             "monitor": bench_monitor, "memory": bench_memory,
             "teardown": bench_teardown, "trace": bench_trace,
             "library": bench_library, "cpu": bench_cpu,
             "egress": bench_egress}
    t_all = time.perf_counter()
    try:
        for name in a.only.split(","):
            log("%s ..." % name)
            t0 = time.perf_counter()
            steps[name](e, rows, notes)
            log("%s done in %.0f s" % (name, time.perf_counter() - t0))
    finally:
        e.cleanup()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    head = [
        "## cordon benchmarks%s" % (" (BENCH_QUICK)" if QUICK else ""),
        "",
        "Machine: %s, %d cores, kernel %s; load average %s at the end; run "
        "as %s; %s; took %.0f s." % (
            platform.machine(), os.cpu_count(), platform.release(), load,
            "%s (uid %d)" % (e.user, e.uid),
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            time.perf_counter() - t_all),
    ]
    tail = ["", "Notes:", ""] + ["- " + n for n in notes] if notes else []
    text = "\n".join(head + rows + tail) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
