/*
 * sleef_widths.c — whether SLEEF's 16-wide float functions (AVX-512) give
 * the bits of its 8-wide ones (AVX2, PyTorch's Vectorized<float>) on every
 * float: vecmath.c calls the 16-wide ones where this found no difference
 * but a NaN's sign. Needs libsleef.so.3 and an AVX-512 CPU:
 *   cc -O2 -mavx512f -mavx2 -mfma bench/sleef_widths.c -o sleef_widths -ldl
 *   ./sleef_widths          (every float; ./sleef_widths 97: every 97th block)
 */
#include <dlfcn.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __m256 (*Fn8)(__m256);
typedef __m512 (*Fn16)(__m512);

int main(int argc, char **argv) {
    static const char *const names[] = {"exp",  "log",  "log10", "log2", "tanh", "sin",
                                        "cos",  "log1p", "sinh", "cosh", "tan",  "atan",
                                        "asin", "acos", "erf",   "expm1"};
    uint64_t step = 16 * (argc > 1 ? strtoull(argv[1], NULL, 10) : 1);
    void *lib = dlopen("libsleef.so.3", RTLD_NOW);
    if (!lib) return fprintf(stderr, "no libsleef.so.3\n"), 2;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char s8[64], s16[64];
        snprintf(s8, sizeof s8, "Sleef_%sf8_u10", names[k]);
        snprintf(s16, sizeof s16, "Sleef_%sf16_u10", names[k]);
        void *p8 = dlsym(lib, s8), *p16 = dlsym(lib, s16);
        if (!p8 || !p16) {
            printf("%s: missing\n", names[k]);
            continue;
        }
        Fn8 f8;
        Fn16 f16;
        memcpy(&f8, &p8, sizeof p8);
        memcpy(&f16, &p16, sizeof p16);
        uint64_t differ = 0, nan_sign = 0, n = 0;
        for (uint64_t b = 0; b < (1ull << 32); b += step) {
            uint32_t bits[16];
            float x[16], y8[16], y16[16];
            for (int i = 0; i < 16; i++) bits[i] = (uint32_t)(b + (uint64_t)i);
            memcpy(x, bits, sizeof x);
            _mm256_storeu_ps(y8, f8(_mm256_loadu_ps(x)));
            _mm256_storeu_ps(y8 + 8, f8(_mm256_loadu_ps(x + 8)));
            _mm512_storeu_ps(y16, f16(_mm512_loadu_ps(x)));
            for (int i = 0; i < 16; i++, n++) {
                if (memcmp(&y8[i], &y16[i], sizeof(float)) == 0) continue;
                if (y8[i] != y8[i] && y16[i] != y16[i]) nan_sign++;
                else differ++;
            }
        }
        printf("%s: %llu of %llu differ, %llu more in a NaN's bits only\n", names[k],
               (unsigned long long)differ, (unsigned long long)n, (unsigned long long)nan_sign);
        fflush(stdout);
    }
    return 0;
}
