// gsgpu-as: assembles gsgpu assembly text into a little-endian binary of 32-bit words.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gsgpu/isa/assembler.h"

int main(int argc, char** argv) {
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc) output = argv[++i];
    else if (input.empty()) input = arg;
    else {
      std::fprintf(stderr, "usage: gsgpu-as in.s -o out.bin\n");
      return 2;
    }
  }
  if (input.empty() || output.empty()) {
    std::fprintf(stderr, "usage: gsgpu-as in.s -o out.bin\n");
    return 2;
  }
  std::ifstream in(input);
  if (!in) {
    std::fprintf(stderr, "gsgpu-as: cannot open %s\n", input.c_str());
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::vector<uint32_t> words;
  std::string error;
  if (!gsgpu::isa::assemble(text.str(), &words, &error)) {
    std::fprintf(stderr, "%s: %s\n", input.c_str(), error.c_str());
    return 1;
  }
  std::ofstream out(output, std::ios::binary);
  // The binary is the words in little-endian order, the byte order of gsgpu memory.
  for (uint32_t w : words) {
    const unsigned char bytes[4] = {static_cast<unsigned char>(w), static_cast<unsigned char>(w >> 8),
                                    static_cast<unsigned char>(w >> 16), static_cast<unsigned char>(w >> 24)};
    out.write(reinterpret_cast<const char*>(bytes), 4);
  }
  if (!out) {
    std::fprintf(stderr, "gsgpu-as: cannot write %s\n", output.c_str());
    return 1;
  }
  return 0;
}
