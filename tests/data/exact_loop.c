/* N iterations of one add the compiler cannot remove: `loop 1.01N` does exactly 1% more work
   than `loop N` (bench/exact_loop.py, tests/e2e/test_instructions.py). */
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 0;
    unsigned long x = 0;
    for (long i = 0; i < n; i++) { x += (unsigned long)i; __asm__ volatile("" : "+r"(x)); }
    return (int)(x & 0);
}
