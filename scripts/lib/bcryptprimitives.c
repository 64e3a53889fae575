/*
 * The Windows lane (scripts/test-windows.mjs) runs Claude Code's own Windows build, claude.exe, under
 * Wine 8. Its Bun runtime imports ProcessPrng from bcryptprimitives.dll, which Windows 10+ has and
 * Wine 8 does not (Wine 9 added it). This is that one export, over RtlGenRandom (advapi32's
 * SystemFunction036), which Wine 8 has: a test-machine shim, never shipped. Built with mingw-w64 into
 * the cached claude.exe's folder, where Windows looks for a DLL first.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
