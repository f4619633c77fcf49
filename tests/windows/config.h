/*
 * config.h for the mingw-w64 cross-build of tests/windows/ (run.sh): the
 * sources cordon shares with it include "config.h", which configure
 * writes for the Linux build only.  Nothing here is needed yet.
 */
#ifndef CORDON_WINDOWS_CONFIG_H
#define CORDON_WINDOWS_CONFIG_H
#endif
