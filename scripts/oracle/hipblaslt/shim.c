/* Two symbols Debian's build needs from newer glibc/libstdc++ than bookworm's (glibc 2.36, GCC 12). */
#include <stdlib.h>
long __isoc23_strtol(const char* s, char** e, int b) { return strtol(s, e, b); }
/* GCC >= 13 calls std::ios_base_library_init() to make sure iostreams are initialised;
 * GCC 12's libstdc++ initialises them in its own constructor, so nothing to do. */
void oracle_ios_init(void) __asm__("_ZSt21ios_base_library_initv");
void oracle_ios_init(void) {}
