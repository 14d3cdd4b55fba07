/* CFuzzDriver: see include/CFuzzDriver.h. */
#include "CFuzzDriver.h"

/* Defined by libclang_rt.fuzzer (LLVM 13 and later) when the build links it; a weak reference is NULL
   otherwise, so the same source builds with and without the fuzzer. */
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*body)(const uint8_t *data, size_t size))
    __attribute__((weak));

int cfuzz_run_driver(int *argc, char ***argv, cfuzz_TestOneInput body) {
    if (LLVMFuzzerRunDriver == NULL) return -1;
    return LLVMFuzzerRunDriver(argc, argv, body);
}
