#include <cstdio>

#include "cdna4/gemm.hpp"

int main() { std::printf("cdna4 %s\n", cdna4::version()); }
