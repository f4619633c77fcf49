"""The Python binding (python/cordon.py), run by tests/python.sh.

Real payloads through the build tree's libcordon and cordon-helper: caps
hit as results, sandbox failures as cordon.SandboxError, output captured
byte for byte, stdin fed, exit codes and signals, runs from several
threads at once, backend() and floor_only().  Each test has its own trace
and workdir base in a temporary directory (and the suite its own empty
configuration directory, so no installed policy applies), and checks
that the run left nothing in the base.
"""
import ast
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import cordon

_CONF = None


def setUpModule():
    global _CONF
    _CONF = tempfile.mkdtemp(prefix="cordon-py-conf-")
    # No system policy, no profiles: cordon's built-in defaults.
    os.environ["CORDON_CONFDIR"] = _CONF
    os.environ["XDG_CONFIG_HOME"] = _CONF


def tearDownModule():
    shutil.rmtree(_CONF)


def stream(n):
    """n bytes of a pattern `yes 0123456789abcdef` makes."""
    line = b"0123456789abcdef\n"
    return (line * (n // len(line) + 1))[:n]


class CordonTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cordon-py-")
        self.trace = os.path.join(self.tmp, "trace.db")
        self.base = os.path.join(self.tmp, "wd")

    def tearDown(self):
        try:
            left = os.listdir(self.base) if os.path.isdir(self.base) else []
            self.assertEqual([n for n in left if n != ".lock"], [],
                             "runs left workdirs behind")
        finally:
            shutil.rmtree(self.tmp)

    def config(self, **fields):
        return cordon.Config(trace_path=self.trace, workdir_base=self.base,
                             **fields)

    def floor(self, **fields):
        return cordon.Config.floor_only(trace_path=self.trace,
                                        workdir_base=self.base, **fields)

    def both(self, **fields):
        """The config on auto (the strongest here) and on the floor."""
        return [("auto", self.config(**fields)), ("floor", self.floor(**fields))]

    def rows(self, what="run_id, outcome"):
        """The trace's runs, as (what...) tuples."""
        if not os.path.exists(self.trace):
            return []
        db = sqlite3.connect(self.trace)
        try:
            return db.execute("SELECT %s FROM runs" % what).fetchall()
        finally:
            db.close()

    # --- output and input ---------------------------------------------------

    def test_captured_output_is_exact_bytes(self):
        for name, cfg in self.both():
            with self.subTest(backend=name):
                r = cordon.run(["sh", "-c",
                                r"printf 'out\377\000\376\n'; "
                                r"printf 'err\200\000' >&2"],
                               cfg, capture_output=True)
                self.assertEqual(r.outcome, "exited")
                self.assertEqual(r.stdout, b"out\xff\x00\xfe\n")
                self.assertEqual(r.stderr, b"err\x80\x00")

    def test_output_larger_than_a_pipe_is_read_while_it_runs(self):
        n = 3 * 1024 * 1024 + 7
        for name, cfg in self.both():
            with self.subTest(backend=name):
                r = cordon.run(["sh", "-c",
                                "yes 0123456789abcdef | head -c %d; "
                                "yes e | head -c %d >&2" % (n, n // 3)],
                               cfg, capture_output=True, timeout=60)
                self.assertEqual((r.outcome, r.exit_code), ("exited", 0))
                self.assertEqual(len(r.stdout), n)
                self.assertEqual(r.stdout, stream(n))
                self.assertEqual(r.stderr, b"e\n" * (n // 6) +
                                 b"e" * (n // 3 % 2))

    def test_stderr_to_stdout_and_devnull(self):
        cfg = self.config()
        r = cordon.run(["sh", "-c", "echo a; echo b >&2"], cfg,
                       stdout=cordon.PIPE, stderr=cordon.STDOUT)
        self.assertEqual(r.stdout, b"a\nb\n")
        self.assertIsNone(r.stderr)
        r = cordon.run(["sh", "-c", "echo a; echo b >&2"], cfg,
                       stdout=cordon.DEVNULL, stderr=cordon.PIPE)
        self.assertIsNone(r.stdout)
        self.assertEqual(r.stderr, b"b\n")

    def test_output_to_a_file(self):
        path = os.path.join(self.tmp, "out")
        with open(path, "wb") as f:
            r = cordon.run(["echo", "to a file"], self.config(), stdout=f)
        self.assertEqual(r.exit_code, 0)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"to a file\n")

    def test_stdin_is_fed(self):
        data = b"first\n\xff\xfe\x00 not UTF-8\n" + stream(2 * 1024 * 1024)
        for name, cfg in self.both():
            with self.subTest(backend=name):
                r = cordon.run(["cat"], cfg, stdin=data, capture_output=True)
                self.assertEqual((r.outcome, r.exit_code), ("exited", 0))
                self.assertEqual(r.stdout, data)
                # A payload that reads none of it is not held up.
                r = cordon.run(["true"], cfg, stdin=data, timeout=30)
                self.assertEqual((r.outcome, r.exit_code), ("exited", 0))
                # DEVNULL and empty bytes: end of file at once.
                for empty in (cordon.DEVNULL, b""):
                    r = cordon.run(["wc", "-c"], cfg, stdin=empty,
                                   capture_output=True, timeout=30)
                    self.assertEqual(r.stdout.strip(), b"0")

    def test_works_with_our_stdio_closed(self):
        """A daemon-like caller with fds 0-2 closed: its files land there.

        Its stdout file becomes fd 0 and the stdin pipe fds 1 and 2; each
        must still reach the payload as what it was given for.
        """
        res, got = (os.path.join(self.tmp, n) for n in ("result", "stdout"))
        script = r"""
import os, sys, cordon
res = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
for fd in (0, 1, 2):
    os.close(fd)
out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
assert out == 0
r = cordon.run(["sh", "-c", "cat; echo to-err >&2"],
               cordon.Config(trace_path=sys.argv[3], workdir_base=sys.argv[4]),
               stdin=b"to-out", stdout=out, stderr=cordon.PIPE)
os.write(res, repr((r.outcome, r.exit_code, r.stderr)).encode())
"""
        subprocess.run([sys.executable, "-c", script, res, got, self.trace,
                        self.base], check=True, timeout=60)
        with open(res) as f:
            self.assertEqual(f.read(), repr(("exited", 0, b"to-err\n")))
        with open(got, "rb") as f:
            self.assertEqual(f.read(), b"to-out")

    def test_output_cap_keeps_exactly_the_cap(self):
        r = cordon.run(["yes"], self.config(output=10000),
                       capture_output=True, timeout=30)
        self.assertEqual((r.outcome, r.cap), ("cap_hit", "output"))
        self.assertEqual(r.exit_status, 124)
        self.assertEqual(r.stdout, b"y\n" * 5000)

    def test_argv_bytes_pass_exactly(self):
        arg = b"\xff\xfe caf\xc3\xa9"
        r = cordon.run(["printf", "%s", arg], self.config(),
                       capture_output=True)
        self.assertEqual(r.stdout, arg)
        self.assertEqual(r.record["argv"][2].encode("utf-8",
                                                    "surrogateescape"), arg)

    # --- how runs end ---------------------------------------------------------

    def test_exit_code_signal_and_missing_command_are_results(self):
        for name, cfg in self.both():
            with self.subTest(backend=name):
                r = cordon.run(["sh", "-c", "exit 7"], cfg)
                self.assertEqual((r.outcome, r.exit_code, r.signal, r.cap),
                                 ("exited", 7, None, None))
                self.assertEqual(r.exit_status, 7)
                r = cordon.run(["sh", "-c", "kill -TERM $$"], cfg)
                self.assertEqual((r.outcome, r.exit_code, r.signal),
                                 ("signaled", None, signal.SIGTERM))
                self.assertEqual(r.exit_status, 128 + signal.SIGTERM)
                r = cordon.run(["/nonexistent/cordon-no-such-command"], cfg)
                self.assertEqual((r.outcome, r.exit_code), ("exited", 127))
                self.assertIn("No such file or directory", r.error)
                self.assertEqual(r.exit_status, 127)
                self.assertEqual(len(r.run_id), 32)
                self.assertTrue(r.workdir_removed)

    def test_timeout_is_the_wall_cap_and_a_result(self):
        for name, cfg in self.both():
            with self.subTest(backend=name):
                t0 = time.monotonic()
                r = cordon.run(["sleep", "60"], cfg, timeout=0.5)
                took = time.monotonic() - t0
                self.assertEqual((r.outcome, r.cap), ("cap_hit", "wall"))
                self.assertEqual(r.exit_status, 124)
                self.assertEqual(r.signal, signal.SIGKILL)
                self.assertIsNone(r.exit_code)
                self.assertEqual(r.record["limits"]["wall_seconds"], 0.5)
                self.assertLess(took, 30, "the wall cap did not end it")
                self.assertTrue(r.applied["wall"])

    def test_cpu_cap_is_a_result(self):
        for name, cfg in self.both(cpu=0.5):
            with self.subTest(backend=name):
                r = cordon.run(["sh", "-c", "while :; do :; done"], cfg,
                               timeout=60)
                self.assertEqual((r.outcome, r.cap), ("cap_hit", "cpu"))
                self.assertEqual(r.exit_status, 124)
                self.assertGreaterEqual(r.cpu_seconds, 0.25)

    def test_keyboard_interrupt_stops_the_run(self):
        main = threading.get_ident()
        timer = threading.Timer(0.5, signal.pthread_kill,
                                (main, signal.SIGINT))
        # Started in the background (CI, nohup), Python inherits SIGINT
        # ignored and raises nothing: a user's Ctrl-C has the default.
        old = signal.signal(signal.SIGINT, signal.default_int_handler)
        t0 = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                cordon.run(["sleep", "60"], self.config())
        finally:
            timer.cancel()
            signal.signal(signal.SIGINT, old)
        self.assertLess(time.monotonic() - t0, 30)
        # Recorded as interrupted: the helper was told to stop the run.
        rows = self.rows("outcome, signal, error")
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][:2], ("signaled", signal.SIGTERM))
        self.assertIn("interrupted", rows[0][2])

    # --- sandbox errors -------------------------------------------------------

    def test_bad_values_raise_config_error(self):
        for fields in ({"nofile": 1}, {"cpu": -1}, {"memory": 1 << 70},
                       {"backend": "chroot"}, {"require": ["telepathy"]},
                       {"ro_bind": ["relative/path"]},
                       {"env": {"HOME": "/x"}}):
            with self.subTest(fields=fields):
                with self.assertRaises(cordon.ConfigError) as cm:
                    self.config(**fields)
                self.assertIsInstance(cm.exception, cordon.SandboxError)
                self.assertIsInstance(cm.exception, ValueError)
                self.assertIn(cm.exception.code_name, ("INVAL", "RANGE"))
        with self.assertRaises(cordon.SandboxError) as cm:
            cordon.run([""], self.config())
        with self.assertRaises(cordon.SandboxError):
            cordon.run(["true"], self.config(), timeout=0)
        self.assertEqual(self.rows(), [], "a refused run was recorded")

    def test_required_control_missing_raises_and_runs_nothing(self):
        cfg = self.floor(require=["network-isolation"])
        with self.assertRaises(cordon.SandboxError) as cm:
            cordon.select(cfg)
        self.assertEqual(cm.exception.code_name, "UNMET")
        self.assertIn("network-isolation", cm.exception.message)
        self.assertIsNone(cm.exception.result)
        # Through a Sandbox selected before: the run itself refuses.
        box = cordon.select(self.floor())
        box.config = cfg
        with self.assertRaises(cordon.SandboxError) as cm:
            box.run(["touch", os.path.join(self.tmp, "ran")])
        self.assertEqual(cm.exception.code_name, "UNMET")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "ran")))
        self.assertEqual(self.rows(), [])

    def test_system_policy_refusal_raises(self):
        with open(os.path.join(_CONF, "policy.conf"), "w") as f:
            f.write("[ceilings]\nmax_memory = 64M\n")
        try:
            with self.assertRaises(cordon.SandboxError) as cm:
                cordon.select(self.config(memory=1 << 30))
            self.assertEqual(cm.exception.code_name, "POLICY")
            self.assertIn("max_memory", cm.exception.message)
            # A default nobody set is lowered to the ceiling instead.
            r = cordon.run(["true"], self.config())
            self.assertEqual(r.record["limits"]["memory_bytes"], 64 << 20)
        finally:
            os.unlink(os.path.join(_CONF, "policy.conf"))

    def test_failed_sandbox_raises_with_its_result(self):
        helper = os.environ["CORDON_HELPER"]
        os.environ["CORDON_HELPER"] = os.path.join(self.tmp, "no-helper")
        try:
            with self.assertRaises(cordon.SandboxError) as cm:
                cordon.run(["true"], self.config(), capture_output=True)
        finally:
            os.environ["CORDON_HELPER"] = helper
        e = cm.exception
        self.assertIn("cannot execute the helper", e.message)
        self.assertIsNotNone(e.result)
        self.assertEqual(e.result.outcome, "sandbox_error")
        self.assertEqual(e.result.exit_status, 125)
        self.assertEqual(self.rows(), [(e.result.run_id, "sandbox_error")])

    def test_named_backend_that_cannot_be_built_raises(self):
        """Inside cordon, whose seccomp filter refuses user namespaces."""
        # The build tree at a path of its own inside (the private root
        # fills /work); the interpreter where it is, unless it is in the
        # system directories every run sees.
        lib = os.environ["CORDON_LIBRARY"]
        build = os.path.dirname(os.path.dirname(lib))    # .libs/..
        binds = [(build, "/cordon-build")]
        inside = {build: "/cordon-build"}
        for p in {os.path.realpath(sys.base_prefix),
                  os.path.realpath(sys.prefix)}:
            if p.split("/")[1] not in ("usr", "bin", "lib", "lib64", "opt"):
                binds.append(p)

        def moved(path):
            for out, at in inside.items():
                if path.startswith(out + "/"):
                    return at + path[len(out):]
            return path

        inner = r"""
import json, os, cordon
cfg = dict(trace_path="/work/t.db", workdir_base="/work/wd")
out = {}
try:
    cordon.select(cordon.Config(backend="linux-ns", **cfg))
    out["linux-ns"] = "selected"
except cordon.SandboxError as e:
    out["linux-ns"] = [e.code_name, e.message]
box = cordon.select(cordon.Config(**cfg))
box.config = cordon.Config(backend="linux-ns", **cfg)
try:
    box.run(["touch", "/work/ran"])
    out["run"] = "ran"
except cordon.SandboxError as e:
    out["run"] = [e.code_name, e.message, e.result and e.result.outcome]
out["ran"] = os.path.exists("/work/ran")
box = cordon.select(cordon.Config(**cfg))
out["auto"] = [box.backend().name, box.backend().reason]
print(json.dumps(out))
"""
        env = {"CORDON_LIBRARY": moved(lib),
               "CORDON_HELPER": moved(os.environ["CORDON_HELPER"]),
               "PYTHONPATH": moved(os.path.abspath(
                   os.environ["PYTHONPATH"])),
               "PYTHONDONTWRITEBYTECODE": "1"}
        # The sanitizer build's libcordon needs the ASan runtime preloaded
        # (tests/python.sh), in the inner python3 too; it is under /usr.
        if os.environ.get("CORDON_ASAN_RUNTIME"):
            env["LD_PRELOAD"] = os.environ["CORDON_ASAN_RUNTIME"]
            env["ASAN_OPTIONS"] = "detect_leaks=0"
        outer = self.config(ro_bind=binds, env=env)
        box = cordon.select(outer)
        if box.backend().name != "linux-ns":
            self.skipTest("needs linux-ns outside: this host gives %s"
                          % box.backend())
        r = box.run([os.path.realpath(sys.executable), "-c", inner],
                    capture_output=True, timeout=60)
        self.assertEqual((r.outcome, r.exit_code), ("exited", 0),
                         r.stderr.decode(errors="replace"))
        got = json.loads(r.stdout)
        print("  inside cordon: %s" % got, file=sys.stderr)
        # select() refuses it before anything is recorded...
        self.assertEqual(got["linux-ns"][0], "UNAVAIL", got)
        self.assertIn("namespace", got["linux-ns"][1])
        # ...and a run asking for it is a recorded sandbox error.
        self.assertEqual((got["run"][0], got["run"][2]),
                         (None, "sandbox_error"), got)
        self.assertIn("linux-ns", got["run"][1])
        self.assertFalse(got["ran"])
        # auto degrades, and says why.
        self.assertIn(got["auto"][0], ("landlock", "floor"))
        self.assertIn("linux-ns unavailable", got["auto"][1])

    # --- backends -------------------------------------------------------------

    def test_floor_only_and_backend(self):
        box = cordon.select(self.floor())
        self.assertEqual(box.backend().name, "floor")
        self.assertTrue(box.backend().reason)
        r = box.run(["true"])
        self.assertEqual(r.backend, "floor")
        self.assertFalse(r.applied["network"])
        self.assertIn("floor", r.not_applied["network"])

        box = cordon.select(self.config())
        self.assertIn(box.backend().name, ("linux-ns", "landlock", "floor"))
        r = box.run(["true"])
        self.assertEqual(r.backend, box.backend().name)
        self.assertEqual(r.backend_reason, box.backend().reason)
        self.assertFalse(cordon.Config().allow_network)
        self.assertIs(r.record["limits"]["network"], False)
        if r.backend == "linux-ns":
            self.assertTrue(r.applied["network"])
            self.assertNotIn("network", r.not_applied)
        r = cordon.run(["true"], self.config(allow_network=True))
        self.assertIs(r.record["limits"]["network"], True)
        self.assertFalse(r.applied["network"])

    def test_profile_env_and_fields_over_it(self):
        os.mkdir(os.path.join(_CONF, "profiles.d"))
        path = os.path.join(_CONF, "profiles.d", "short.conf")
        with open(path, "w") as f:
            f.write("[profile]\nwall = 500ms\nenv = FROM_PROFILE=yes\n")
        try:
            r = cordon.run(["sleep", "60"], self.config(profile="short"))
            self.assertEqual((r.outcome, r.cap), ("cap_hit", "wall"))
            self.assertEqual(r.record["limits"]["wall_seconds"], 0.5)
            r = cordon.run(["sh", "-c", "echo $FROM_PROFILE $MINE"],
                           self.config(profile="short", wall=30,
                                       env={"MINE": "\xe9"}),
                           capture_output=True)
            self.assertEqual(r.record["limits"]["wall_seconds"], 30)
            self.assertEqual(r.stdout, "yes \xe9\n".encode())
            with self.assertRaises(cordon.SandboxError) as cm:
                self.config(profile="absent")
            self.assertIn("absent", cm.exception.message)
        finally:
            shutil.rmtree(os.path.join(_CONF, "profiles.d"))

    # --- threads ----------------------------------------------------------------

    def test_concurrent_runs_from_threads(self):
        box = cordon.select(self.config())
        n = 8
        results, errors = [None] * n, []

        def one(i):
            try:
                if i % 4 == 3:
                    results[i] = box.run(["sleep", "60"], timeout=0.5)
                else:
                    data = ("%d\n" % i).encode() * (20000 + i)
                    results[i] = box.run(
                        ["sh", "-c", "cat; echo run %d >&2; exit %d"
                         % (i, i)], stdin=data, capture_output=True)
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        self.assertEqual(errors, [])
        for i, r in enumerate(results):
            if i % 4 == 3:
                self.assertEqual((r.outcome, r.cap), ("cap_hit", "wall"))
            else:
                self.assertEqual((r.outcome, r.exit_code), ("exited", i))
                self.assertEqual(r.stdout, ("%d\n" % i).encode() *
                                 (20000 + i))
                self.assertEqual(r.stderr, b"run %d\n" % i)
        ids = {r.run_id for r in results}
        self.assertEqual(len(ids), n)
        self.assertEqual({i for i, _ in self.rows()}, ids)

    def test_first_runs_of_a_process_from_threads_share_one_probe(self):
        """Required controls make each run ask select's per-process cache,
        which threads fill at once in a fresh process."""
        script = r"""
import sys, threading, cordon
cfg = cordon.Config(require=["memory", "wall"], trace_path=sys.argv[1],
                    workdir_base=sys.argv[2])
out = [None] * 6
def one(i):
    try:
        r = cordon.run(["sh", "-c", "exit %d" % i], cfg)
        out[i] = (r.outcome, r.exit_code, r.run_id)
    except Exception as e:
        out[i] = repr(e)
ts = [threading.Thread(target=one, args=(i,)) for i in range(6)]
[t.start() for t in ts]
[t.join() for t in ts]
print(repr(out))
"""
        p = subprocess.run([sys.executable, "-c", script, self.trace,
                            self.base], stdout=subprocess.PIPE, check=True,
                           timeout=120)
        out = ast.literal_eval(p.stdout.decode())
        self.assertEqual([o[:2] for o in out],
                         [("exited", i) for i in range(6)], out)
        self.assertEqual(len({o[2] for o in out}), 6)


if __name__ == "__main__":
    unittest.main()
