/* A stand-in for bcryptprimitives.dll, which Wine 8.0 lacks and Rust's std
 * imports for ProcessPrng (Windows 10 and later have it). Only for running the
 * win64 tests under wine; never shipped in an FMU. ProcessPrng fills a buffer
 * with random bytes, as RtlGenRandom (advapi32's SystemFunction036) does. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
