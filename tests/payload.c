/*
 * payload.c - a test payload with the behaviours the integration tests
 * need: burn CPU, allocate, fork, daemonise, plant symlinks, report.
 *
 *   payload exit N | kill SIG | sleep S | spin S | spinfork N S
 *           alloc MB | allocfork N MB | shmalloc MB | cow MB N | forkn N
 *           daemon PIDFILE | writepid FILE S | plant DIR | env | fds | cwd
 *           connect IP PORT | uconnect NAME | selfserve | forkbomb | killall
 *           scopekill VICTIM | daemonpid | udpsend IP PORT
 *           files N (N empty files in cwd, 1,000 per directory)
 *           threads N S (N more threads, all kept S seconds; prints how
 *           many it got)
 *           proxy connect|socks|http HOST PORT [PATH] (through the proxy
 *           $http_proxy names: prints its answer and what came back)
 *           flood N HOST PORT (N half-open connections to the proxy
 *           held, then one CONNECT through it; prints how many it made)
 *           slowloris HOST PORT (a request a byte at a time, until the
 *           proxy cuts it; then one CONNECT)
 *           fetch direct|connect HOST PORT (reads to EOF, directly from
 *           IPv4 HOST or through the proxy; prints bytes and seconds)
 *           stall SLOW[,SLOW...] HOST PORT (CONNECTs to each SLOW left
 *           waiting, then one to HOST: prints that answer, how long it
 *           took, then the SLOW ones')
 */
#include "config.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Burns CPU for s seconds of this process's CPU time (forever if 0). */
static void
spin(double s)
{
	volatile unsigned long x = 0;

	while (s <= 0 || cpu_now() < s)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	(void)x; /* read once, or clang calls it set but not used */
}

static void
touch_alloc(size_t mb, int shared)
{
	size_t len = mb << 20;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
}

static void
write_pid(const char *file)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	if ((f = fopen(tmp, "w")) == NULL) {
		perror(tmp);
		exit(2);
	}
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	rename(tmp, file);
}

static void
forkn(int n, void (*fn)(const char *), const char *arg)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			exit(3);
		}
		if (pid == 0) {
			fn(arg);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
}

static void *
idle_thread(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void do_spin(const char *a) { spin(atof(a)); }
static void do_alloc(const char *a) { touch_alloc((size_t)atol(a), 0); pause(); }
static void do_sleep(const char *a) { (void)a; pause(); }

/* A connection to the proxy $http_proxy names (http://127.0.0.1:PORT). */
static int
proxy_fd(void)
{
	const char *v = getenv("http_proxy"), *c;
	struct sockaddr_in sin;
	int fd;

	if (v == NULL || (c = strrchr(v, ':')) == NULL)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(c + 1));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
put_all(int fd, const void *p, size_t n)
{
	ssize_t w;

	while (n > 0 && (w = write(fd, p, n)) > 0) {
		p = (const char *)p + w;
		n -= (size_t)w;
	}
}

/* Copies what fd says to stdout until EOF (or 5 s of silence). */
static void
drain(int fd)
{
	struct timeval tv = { 5, 0 };
	char buf[4096];
	ssize_t n;

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
}

/* One request through the proxy: mode connect, socks or http. */
static int
via_proxy(const char *mode, const char *host, const char *port,
    const char *path)
{
	unsigned char req[600], rep[10];
	struct in_addr ip;
	size_t n, hl = strlen(host);
	int fd = proxy_fd(), p = atoi(port);

	if (fd < 0 || hl > 255) {
		printf("proxy: cannot connect: %s\n", strerror(errno));
		return 1;
	}
	if (strcmp(mode, "connect") == 0) {
		n = (size_t)snprintf((char *)req, sizeof(req), "CONNECT %s:%s "
		    "HTTP/1.1\r\nHost: %s:%s\r\n\r\n", host, port, host, port);
		put_all(fd, req, n);
	} else if (strcmp(mode, "http") == 0) {
		/* Keep-alive asked for: the proxy must turn it into close. */
		n = (size_t)snprintf((char *)req, sizeof(req), "GET http://%s:%s%s "
		    "HTTP/1.1\r\nHost: %s\r\nConnection: keep-alive\r\n"
		    "Proxy-Connection: Keep-Alive\r\nKeep-Alive: 300\r\n\r\n",
		    host, port, path, host);
		put_all(fd, req, n);
	} else {
		put_all(fd, "\x05\x01\x00", 3);
		if (read(fd, rep, 2) != 2 || rep[1] != 0) {
			printf("socks: no method\n");
			return 1;
		}
		memcpy(req, "\x05\x01\x00", 3);
		if (inet_pton(AF_INET, host, &ip) == 1) {
			req[3] = 1;
			memcpy(req + 4, &ip, 4);
			n = 8;
		} else {
			req[3] = 3;
			req[4] = (unsigned char)hl;
			memcpy(req + 5, host, hl);
			n = 5 + hl;
		}
		req[n++] = (unsigned char)(p >> 8);
		req[n++] = (unsigned char)p;
		put_all(fd, req, n);
		if (read(fd, rep, 10) != 10) {
			printf("socks: no reply\n");
			return 1;
		}
		printf("socks reply %d\n", rep[1]);
	}
	drain(fd);
	close(fd);
	return 0;
}

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Everything HOST:PORT sends, counted and timed (the bench's row). */
static int
fetch(const char *mode, const char *host, const char *port)
{
	static char buf[1 << 16];
	struct sockaddr_in sin;
	unsigned long long total = 0;
	char req[600], *e;
	double t0 = mono_now();
	ssize_t n;
	int fd, len, head = 0;

	if (strcmp(mode, "direct") == 0) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)atoi(port));
		if (inet_pton(AF_INET, host, &sin.sin_addr) != 1 ||
		    (fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
			return 1;
	} else {
		if ((fd = proxy_fd()) < 0)
			return 1;
		len = snprintf(req, sizeof(req), "CONNECT %s:%s HTTP/1.1\r\n\r\n",
		    host, port);
		put_all(fd, req, (size_t)len);
		head = 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (head) {
			/* The proxy's answer comes first, in the first read. */
			if ((e = memmem(buf, (size_t)n, "\r\n\r\n", 4)) == NULL)
				return 1;
			n -= e + 4 - buf;
			head = 0;
		}
		total += (unsigned long long)n;
	}
	printf("bytes %llu seconds %.6f\n", total, mono_now() - t0);
	return 0;
}

/* N connections to the proxy, each with half a request, held open. */
static int
flood(long n, const char *host, const char *port)
{
	long i, made = 0;
	int fd, r;

	for (i = 0; i < n; i++) {
		if ((fd = proxy_fd()) < 0)
			break;
		put_all(fd, "CONNECT ", 8);
		made++;
	}
	printf("half-open: %ld\n", made);
	fflush(stdout);
	r = via_proxy("connect", host, port, "");
	return r;
}

/* Requests left waiting on names (SLOW, comma-separated), one meanwhile. */
static int
stall(char *slow, const char *host, const char *port)
{
	char req[600], *save = NULL, *name;
	int fds[8], n = 0, i, len, r;
	double t0;

	for (name = strtok_r(slow, ",", &save); name != NULL && n < 8;
	    name = strtok_r(NULL, ",", &save)) {
		if ((fds[n] = proxy_fd()) < 0)
			return 1;
		len = snprintf(req, sizeof(req), "CONNECT %s:%s HTTP/1.1\r\n"
		    "\r\n", name, port);
		put_all(fds[n++], req, (size_t)len);
	}
	t0 = mono_now();
	r = via_proxy("connect", host, port, "");
	printf("other: answered in %.1f s\n", mono_now() - t0);
	for (i = 0; i < n; i++) {
		printf("stalled: ");
		drain(fds[i]);
		printf("\nstalled: ended after %.1f s\n", mono_now() - t0);
		close(fds[i]);
	}
	return r;
}

/* A request a byte every 50 ms, until the proxy closes the connection. */
static int
slowloris(const char *host, const char *port)
{
	static const char req[] = "CONNECT slow.test:80 HTTP/1.1\r\n"
	    "X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "\r\n\r\n";
	struct timespec ts = { 0, 50 * 1000000L };
	char c;
	size_t i;
	int fd = proxy_fd();

	if (fd < 0)
		return 1;
	for (i = 0; i < sizeof(req) - 1; i++) {
		if (send(fd, req + i, 1, MSG_NOSIGNAL) != 1 ||
		    recv(fd, &c, 1, MSG_DONTWAIT) == 0)
			break;
		nanosleep(&ts, NULL);
	}
	printf("slowloris: %s after %zu bytes\n", i < sizeof(req) - 1 ?
	    "cut" : "not cut", i);
	fflush(stdout);
	close(fd);
	return via_proxy("connect", host, port, "");
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char cwd[4096], path[4096];

	if (strcmp(mode, "exit") == 0 && argc >= 3)
		return atoi(argv[2]);
	if (strcmp(mode, "kill") == 0 && argc == 3) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 99;
	}
	if (strcmp(mode, "sleep") == 0 && argc == 3) {
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	if (strcmp(mode, "spin") == 0 && argc == 3) {
		spin(atof(argv[2]));
		return 0;
	}
	if (strcmp(mode, "spinfork") == 0 && argc == 4) {
		forkn(atoi(argv[2]), do_spin, argv[3]);
		return 0;
	}
	if (strcmp(mode, "alloc") == 0 && argc == 3) {
		touch_alloc((size_t)atol(argv[2]), 0);
		pause();
		return 0;
	}
	if (strcmp(mode, "shmalloc") == 0 && argc == 3) {
		touch_alloc((size_t)atol(argv[2]), 1);
		pause();
		return 0;
	}
	if (strcmp(mode, "allocfork") == 0 && argc == 4) {
		forkn(atoi(argv[2]), do_alloc, argv[3]);
		return 0;
	}
	if (strcmp(mode, "cow") == 0 && argc == 4) {
		/* One allocation, then children that share it copy-on-write. */
		touch_alloc((size_t)atol(argv[2]), 0);
		forkn(atoi(argv[3]), do_sleep, NULL);
		return 0;
	}
	if (strcmp(mode, "forkn") == 0 && argc == 3) {
		forkn(atoi(argv[2]), do_sleep, NULL);
		return 0;
	}
	if (strcmp(mode, "daemon") == 0 && argc == 3) {
		/*
		 * The classic escape: fork, setsid, fork, parent exits.  The
		 * pid file is written before anyone exits, so the test can
		 * check on the daemon after the run.
		 */
		int ready[2];
		char c = 0;
		pid_t pid;

		if (pipe(ready) < 0)
			return 2;
		pid = fork();
		if (pid == 0) {
			setsid();
			if (fork() == 0) {
				close(0);
				close(1);
				close(2);
				write_pid(argv[2]);
				(void)!write(ready[1], &c, 1);
				for (;;)
					pause();
			}
			(void)!read(ready[0], &c, 1);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		return 0;
	}
	if (strcmp(mode, "writepid") == 0 && argc == 4) {
		write_pid(argv[2]);
		sleep((unsigned)atoi(argv[3]));
		return 0;
	}
	if (strcmp(mode, "plant") == 0 && argc == 3) {
		/* Links out of the workdir, and dirs made hard to remove. */
		snprintf(path, sizeof(path), "%s/victim", argv[2]);
		if (symlink(argv[2], "outdir") < 0 ||
		    symlink(path, "outfile") < 0 ||
		    mkdir("locked", 0700) < 0 ||
		    symlink(argv[2], "locked/outdir") < 0 ||
		    mkdir("locked/inner", 0700) < 0 ||
		    symlink(path, "locked/inner/outfile") < 0 ||
		    chmod("locked/inner", 0) < 0 || chmod("locked", 0500) < 0) {
			perror("plant");
			return 2;
		}
		return 0;
	}
	if (strcmp(mode, "proxy") == 0 && (argc == 5 || argc == 6))
		return via_proxy(argv[2], argv[3], argv[4], argc == 6 ? argv[5] :
		    "/");
	if (strcmp(mode, "fetch") == 0 && argc == 5)
		return fetch(argv[2], argv[3], argv[4]);
	if (strcmp(mode, "flood") == 0 && argc == 5)
		return flood(atol(argv[2]), argv[3], argv[4]);
	if (strcmp(mode, "slowloris") == 0 && argc == 4)
		return slowloris(argv[2], argv[3]);
	if (strcmp(mode, "stall") == 0 && argc == 5)
		return stall(argv[2], argv[3], argv[4]);
	if (strcmp(mode, "connect") == 0 && argc == 4) {
		struct sockaddr_in sin;
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)atoi(argv[3]));
		if (fd < 0 || inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
			return 2;
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
			printf("connect: %s\n", strerror(errno));
			return 1;
		}
		printf("connected\n");
		return 0;
	}
	if (strcmp(mode, "uconnect") == 0 && argc == 3) {
		struct sockaddr_un sun;
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		socklen_t len;

		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		/* Abstract: a leading NUL, then the name. */
		strncpy(sun.sun_path + 1, argv[2], sizeof(sun.sun_path) - 2);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(argv[2]));
		if (fd < 0)
			return 2;
		if (connect(fd, (struct sockaddr *)&sun, len) < 0) {
			printf("uconnect: %s\n", strerror(errno));
			return 1;
		}
		printf("connected\n");
		return 0;
	}
	if (strcmp(mode, "selfserve") == 0) {
		/* A server on 127.0.0.1 and a client of it, in one process. */
		struct sockaddr_in sin;
		socklen_t len = sizeof(sin);
		int l = socket(AF_INET, SOCK_STREAM, 0), c, a;
		char b = 0;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    listen(l, 1) < 0 ||
		    getsockname(l, (struct sockaddr *)&sin, &len) < 0 ||
		    (c = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(c, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    (a = accept(l, NULL, NULL)) < 0 || write(c, "x", 1) != 1 ||
		    read(a, &b, 1) != 1 || b != 'x') {
			printf("selfserve: %s\n", strerror(errno));
			return 1;
		}
		printf("served\n");
		return 0;
	}
	if (strcmp(mode, "threads") == 0 && argc == 4) {
		pthread_t t;
		int i, got = 0;

		for (i = 0; i < atoi(argv[2]); i++)
			if (pthread_create(&t, NULL, idle_thread, NULL) == 0)
				got++;
		printf("threads: %d of %d\n", got, atoi(argv[2]));
		fflush(stdout);
		usleep((useconds_t)(atof(argv[3]) * 1e6));
		return 0;
	}
	if (strcmp(mode, "forkbomb") == 0) {
		for (;;)
			if (fork() < 0)
				usleep(1000);
	}
	if (strcmp(mode, "killall") == 0) {
		/* Everything this process may signal but itself: a sleeper. */
		if (fork() == 0) {
			pause();
			_exit(0);
		}
		usleep(100000);
		printf("kill -1: %d\n", kill(-1, SIGKILL));
		fflush(stdout);
		sleep(1);
		return 0;
	}
	if (strcmp(mode, "scopekill") == 0 && argc == 3) {
		/*
		 * Probes (signal 0) the helper, the broker (the helper's
		 * parent) and VICTIM, a process of the test.  Only if all
		 * three are refused does it send SIGKILL to them, and kill(-1)
		 * only when not root: were scoping broken, that would reach
		 * every process of this uid - or of the machine.
		 */
		pid_t pid[3] = { getppid(), 0, (pid_t)atoi(argv[2]) }, sl;
		const char *name[3] = { "helper", "broker", "victim" };
		char line[512], *rp;
		int refused = 0, i, ws = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid[0]);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(line, sizeof(line), f) != NULL &&
			    (rp = strrchr(line, ')')) != NULL)
				pid[1] = (pid_t)atoi(rp + 4);
			fclose(f);
		}
		for (i = 0; i < 3; i++) {
			int r = pid[i] > 1 ? kill(pid[i], 0) : -1;

			printf("probe %s: %s\n", name[i], r == 0 ? "reached" :
			    pid[i] > 1 ? strerror(errno) : "unknown");
			refused += r < 0 && pid[i] > 1 && errno == EPERM;
		}
		if (refused != 3) {
			printf("not scoped: no SIGKILL sent\n");
			return 3;
		}
		for (i = 0; i < 3; i++)
			printf("kill %s: %s\n", name[i], kill(pid[i], SIGKILL) == 0 ?
			    "sent" : strerror(errno));
		if (getuid() == 0) {
			printf("kill -1: skipped (root)\n");
			return 0;
		}
		if ((sl = fork()) == 0) {
			pause();
			_exit(0);
		}
		usleep(100000);
		printf("kill -1: %d\n", kill(-1, SIGKILL));
		printf("own child killed: %s\n", waitpid(sl, &ws, 0) == sl &&
		    WIFSIGNALED(ws) ? "yes" : "no");
		return 0;
	}
	if (strcmp(mode, "daemonpid") == 0) {
		/* fork, setsid, fork; the daemon's pid goes to stdout. */
		int p[2];
		pid_t d = 0;

		if (pipe(p) < 0)
			return 2;
		if (fork() == 0) {
			setsid();
			if ((d = fork()) == 0) {
				close(0);
				close(1);
				close(2);
				for (;;)
					pause();
			}
			(void)!write(p[1], &d, sizeof(d));
			_exit(0);
		}
		if (read(p[0], &d, sizeof(d)) != sizeof(d))
			return 2;
		wait(NULL);
		printf("daemon %d\n", (int)d);
		return 0;
	}
	if (strcmp(mode, "udpsend") == 0 && argc == 4) {
		struct sockaddr_in sin;
		int fd = socket(AF_INET, SOCK_DGRAM, 0);

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)atoi(argv[3]));
		if (fd < 0 || inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1 ||
		    sendto(fd, "x", 1, 0, (struct sockaddr *)&sin,
		    sizeof(sin)) != 1) {
			printf("udp: %s\n", strerror(errno));
			return 1;
		}
		printf("sent\n");
		return 0;
	}
	if (strcmp(mode, "env") == 0) {
		for (char **e = environ; *e != NULL; e++)
			printf("%s\n", *e);
		return 0;
	}
	if (strcmp(mode, "fds") == 0) {
		DIR *d = opendir("/proc/self/fd");
		struct dirent *e;
		int self = d != NULL ? dirfd(d) : -1;

		while (d != NULL && (e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' && atoi(e->d_name) != self)
				printf("%s\n", e->d_name);
		if (d != NULL)
			closedir(d);
		return 0;
	}
	if (strcmp(mode, "files") == 0 && argc == 3) {
		char name[64];
		long n = atol(argv[2]), i;
		int fd;

		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "d%ld", i / 1000);
			if (i % 1000 == 0 && mkdir(name, 0755) < 0)
				return 2;
			snprintf(name, sizeof(name), "d%ld/f%ld", i / 1000, i);
			if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
				return 2;
			close(fd);
		}
		return 0;
	}
	if (strcmp(mode, "cwd") == 0) {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return 2;
		printf("%s\n", cwd);
		return 0;
	}
	fprintf(stderr, "payload: bad arguments\n");
	return 64;
}
