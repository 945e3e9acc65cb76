// gsgpu-dis: prints a gsgpu binary (little-endian 32-bit words) as assembly that gsgpu-as turns
// back into the same bytes.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gsgpu/isa/disassembler.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gsgpu-dis in.bin\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "gsgpu-dis: cannot open %s\n", argv[1]);
    return 1;
  }
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() % 4 != 0) {
    std::fprintf(stderr, "gsgpu-dis: %s is %zu bytes, not a whole number of 32-bit words\n", argv[1],
                 bytes.size());
    return 1;
  }
  std::vector<uint32_t> words(bytes.size() / 4);
  for (size_t i = 0; i < words.size(); ++i)
    words[i] = bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) |
               (static_cast<uint32_t>(bytes[4 * i + 3]) << 24);
  std::fputs(gsgpu::isa::disassemble(words.data(), words.size()).c_str(), stdout);
  return 0;
}
