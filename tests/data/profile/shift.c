/* Known truth for `--profile`: `./shift base` and `./shift slower` differ in one function: the
   candidate runs work() four times as long (+150% of the run, all of it in work); `./shift moved`
   moves time from other() to work() (work x2.5, other x0.5). */
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void other(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "base";
    unsigned long unit = argc > 2 ? strtoul(argv[2], 0, 10) : 50000000UL;
    double fw = 1.0, fo = 1.0;
    if (strcmp(mode, "slower") == 0) fw = 4.0;
    else if (strcmp(mode, "moved") == 0) { fw = 2.5; fo = 0.5; }
    work((unsigned long)(unit * fw));
    other((unsigned long)(unit * fo));
    return 0;
}
