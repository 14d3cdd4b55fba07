/* CFuzzDriver: libFuzzer's driver when the fuzzer runtime is linked in (a build with
   -sanitize=fuzzer), nothing otherwise. coordfuzz calls it from its own main. */
#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/* One input for the fuzz target: returns 0 (libFuzzer's convention). */
typedef int (*cfuzz_TestOneInput)(const uint8_t *data, size_t size);

/* Hands the command line to libFuzzer, which then calls `body` with each input it makes, and returns its
   exit status; returns -1 at once when this binary was built without the fuzzer runtime. */
int cfuzz_run_driver(int *argc, char ***argv, cfuzz_TestOneInput body);

#endif
