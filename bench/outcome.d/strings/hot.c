/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: string processing over a text buffer: fold it to lower case,
 * count the vowels a, e and o, spaces and digits, and a position-weighted sum. */
long
textstats(int n, const unsigned char *restrict s, unsigned char *restrict out)
{
    int vowels = 0, spaces = 0, digits = 0;

    for (int i = 0; i < n; i++) {
        unsigned char c = s[i];
        out[i] = (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
    }
    for (int i = 0; i < n; i++) {
        unsigned char c = out[i];
        vowels += c == 'a';
        vowels += c == 'e';
        vowels += c == 'o';
        spaces += c == ' ';
        digits += (unsigned char)(c - '0') < 10;
    }
    return vowels * 1000003L + spaces * 1009L + (long)digits;
}
