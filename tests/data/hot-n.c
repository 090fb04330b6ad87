long
hot@I@(long n)
{
    long s = 0;
    for (long r = 0; r < 40; r++)
        for (long i = 0; i < n; i++)
            s += (i * 7 + r + @I@) % 13;
    return s;
}
