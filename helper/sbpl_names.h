/*
 * sbpl_names.h - every SBPL name the seatbelt backend may write, in one
 * place: the operations, the filters and the symbols they take, and the
 * modifiers.  The generator (sbpl.c) can only emit a name through these
 * enums, and tests/test_sbpl.c builds the TinyScheme check's stubs from
 * the same lists, so a name is either here (and checked) or not written.
 *
 * The names follow Apple's sandbox profile language as used by the
 * profiles that run today under sandbox-exec (Chromium's, OpenAI codex's);
 * they were read there, not run here: no Mac in CI (README.md, "macOS").
 *
 * X(ID, "name") for operations and modifiers; filters carry what their
 * argument must be (enum sbpl_arg), symbols the filter they belong to.
 * The four forms around them are the language's own and fixed:
 * (version 1), (allow OP... FILTER...), (deny OP... FILTER...) and
 * (param "KEY"), the value given to sandbox-exec as -D KEY=VALUE.
 */
#ifndef CORDON_SBPL_NAMES_H
#define CORDON_SBPL_NAMES_H

#define SBPL_OPERATIONS(X) \
	X(DEFAULT, "default") \
	X(FILE_READ, "file-read*") \
	X(FILE_WRITE, "file-write*") \
	X(FILE_WRITE_DATA, "file-write-data") \
	X(FILE_IOCTL, "file-ioctl") \
	X(FILE_MAP_EXECUTABLE, "file-map-executable") \
	X(PROCESS_EXEC, "process-exec") \
	X(PROCESS_FORK, "process-fork") \
	X(PROCESS_INFO, "process-info*") \
	X(SIGNAL, "signal") \
	X(SYSCTL_READ, "sysctl-read") \
	X(MACH_LOOKUP, "mach-lookup") \
	X(USER_PREFERENCE_READ, "user-preference-read") \
	X(IPC_POSIX_SEM, "ipc-posix-sem") \
	X(PSEUDO_TTY, "pseudo-tty") \
	X(NETWORK, "network*") \
	X(NETWORK_OUTBOUND, "network-outbound") \
	X(SYSTEM_SOCKET, "system-socket")

/* What a filter's arguments must be. */
enum sbpl_arg {
	SBPL_ARG_PATH,     /* one (param "KEY"): never a string literal */
	SBPL_ARG_NAME,     /* one string literal from sbpl.c's own tables */
	SBPL_ARG_SYMBOL,   /* one symbol of SBPL_SYMBOLS for this filter */
	SBPL_ARG_ADDRESS,  /* a symbol of SBPL_SYMBOLS, then "host:port" */
	SBPL_ARG_FILTERS,  /* one or more filters */
	SBPL_ARG_FILTER    /* exactly one filter */
};

#define SBPL_FILTERS(X) \
	X(LITERAL, "literal", SBPL_ARG_PATH) \
	X(SUBPATH, "subpath", SBPL_ARG_PATH) \
	X(PREFIX, "prefix", SBPL_ARG_PATH) \
	X(SYSCTL_NAME, "sysctl-name", SBPL_ARG_NAME) \
	X(SYSCTL_NAME_PREFIX, "sysctl-name-prefix", SBPL_ARG_NAME) \
	X(GLOBAL_NAME, "global-name", SBPL_ARG_NAME) \
	X(TARGET, "target", SBPL_ARG_SYMBOL) \
	X(VNODE_TYPE, "vnode-type", SBPL_ARG_SYMBOL) \
	X(REMOTE, "remote", SBPL_ARG_ADDRESS) \
	X(REQUIRE_ALL, "require-all", SBPL_ARG_FILTERS) \
	X(REQUIRE_NOT, "require-not", SBPL_ARG_FILTER)

/* X(ID, "name", FILTER): the symbols a filter takes, and which filter. */
#define SBPL_SYMBOLS(X) \
	X(SAME_SANDBOX, "same-sandbox", TARGET) \
	X(CHARACTER_DEVICE, "CHARACTER-DEVICE", VNODE_TYPE) \
	X(IP, "ip", REMOTE)

/*
 * Modifiers go last in a rule, as (with NAME).  The profile uses none
 * today: denials are logged (the unified log is where a Mac user sees
 * why a payload failed), and nothing is allowed with a report.  The
 * checker accepts exactly these, so adding one is a change here first.
 */
#define SBPL_MODIFIERS(X) \
	X(WITH, "with") \
	X(REPORT, "report")

#define SBPL_ENUM_(id, ...) SBPL_##id,
enum sbpl_op { SBPL_OPERATIONS(SBPL_ENUM_) SBPL_OP_N_ };
#undef SBPL_ENUM_
#define SBPL_ENUM_(id, ...) SBPL_F_##id,
enum sbpl_filter { SBPL_FILTERS(SBPL_ENUM_) SBPL_FILTER_N_ };
#undef SBPL_ENUM_
#define SBPL_ENUM_(id, ...) SBPL_S_##id,
enum sbpl_symbol { SBPL_SYMBOLS(SBPL_ENUM_) SBPL_SYMBOL_N_ };
#undef SBPL_ENUM_
#define SBPL_ENUM_(id, ...) SBPL_M_##id,
enum sbpl_modifier { SBPL_MODIFIERS(SBPL_ENUM_) SBPL_MODIFIER_N_ };
#undef SBPL_ENUM_

#endif
