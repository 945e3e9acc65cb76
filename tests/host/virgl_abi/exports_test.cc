// The library's symbols and soname as QEMU's loader sees them, and the capset settings.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <fstream>
#include <string>

#include "host/virgl_abi/capset_map.h"
#include "tests/host/virgl_abi/virgl_library.h"

#include <gtest/gtest.h>

namespace gsvirt::virgl_abi::testing {
namespace {

// Symbol names from one of the lists beside this file (# starts a comment).
std::vector<std::string> read_list(const char* env) {
  std::vector<std::string> names;
  const char* path = std::getenv(env);
  if (!path) return names;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  return names;
}

void expect_all_exported(const char* env, size_t expected_count) {
  VirglLibrary& lib = VirglLibrary::get();
  ASSERT_NE(nullptr, lib.handle) << lib.error;
  std::vector<std::string> names = read_list(env);
  EXPECT_EQ(expected_count, names.size()) << env;
  for (const std::string& name : names) EXPECT_NE(nullptr, dlsym(lib.handle, name.c_str())) << name;
}

TEST(VirglAbiExports, EverySymbolQemu10ImportsIsExported) {
  expect_all_exported("GSVIRT_VIRGL_QEMU_IMPORTS", 28);
}

TEST(VirglAbiExports, EverySymbolOfVirglrenderer11IsExported) {
  expect_all_exported("GSVIRT_VIRGL_REAL_EXPORTS", 45);
}

// gsvirt's own C API and C++ symbols stay inside: nothing of QEMU's may bind to them.
TEST(VirglAbiExports, GsvirtSymbolsAreNotExported) {
  VirglLibrary& lib = VirglLibrary::get();
  ASSERT_NE(nullptr, lib.handle) << lib.error;
  for (const char* name : {"gsvirt_renderer_init", "gsvirt_renderer_submit_cmd", "_ZN6gsvirt9log_errorEPKcz"})
    EXPECT_EQ(nullptr, dlsym(lib.handle, name)) << name;
}

// QEMU's module records NEEDED libvirglrenderer.so.1: the soname must match.
TEST(VirglAbiExports, SonameIsLibvirglrendererSo1) {
  VirglLibrary& lib = VirglLibrary::get();
  ASSERT_NE(nullptr, lib.handle) << lib.error;
  link_map* map = nullptr;
  ASSERT_EQ(0, dlinfo(lib.handle, RTLD_DI_LINKMAP, &map));
  const char* strtab = nullptr;
  ElfW(Xword) soname = 0;
  bool has_soname = false;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
    if (d->d_tag == DT_SONAME) {
      soname = d->d_un.d_val;
      has_soname = true;
    }
  }
  ASSERT_TRUE(strtab && has_soname);
  EXPECT_STREQ("libvirglrenderer.so.1", strtab + soname);
}

TEST(VirglAbiCapsetMap, DefaultsAreVirgl2ForVcompAndVenusForGsgpu) {
  CapsetMap map;
  std::string error;
  ASSERT_TRUE(parse_capset_map(nullptr, "", &map, &error)) << error;
  EXPECT_EQ(2u, map.vcomp_id);
  EXPECT_EQ(4u, map.gsgpu_id);
  EXPECT_EQ(16u, map.gsvirt_capset_for(2));
  EXPECT_EQ(17u, map.gsvirt_capset_for(4));
  EXPECT_EQ(0u, map.gsvirt_capset_for(1));
  EXPECT_EQ(0u, map.gsvirt_capset_for(0));
}

TEST(VirglAbiCapsetMap, SettingsChooseOrTurnOff) {
  CapsetMap map;
  std::string error;
  ASSERT_TRUE(parse_capset_map("16", "17", &map, &error)) << error;  // a patched QEMU's own ids
  EXPECT_EQ(16u, map.gsvirt_capset_for(16));
  EXPECT_EQ(17u, map.gsvirt_capset_for(17));
  ASSERT_TRUE(parse_capset_map("4", "off", &map, &error)) << error;
  EXPECT_EQ(16u, map.gsvirt_capset_for(4));
  EXPECT_EQ(0u, map.gsvirt_capset_for(2));
  ASSERT_TRUE(parse_capset_map("0", "2", &map, &error)) << error;
  EXPECT_EQ(0u, map.vcomp_id);
  EXPECT_EQ(17u, map.gsvirt_capset_for(2));
  EXPECT_EQ(0u, map.gsvirt_capset_for(0));
}

TEST(VirglAbiCapsetMap, BadSettingsAreErrors) {
  for (const char* bad : {"abc", "32", "-1", "2x", " 2", "99999999999999999999"}) {
    CapsetMap map;
    std::string error;
    EXPECT_FALSE(parse_capset_map(bad, nullptr, &map, &error)) << bad;
    EXPECT_NE(std::string::npos, error.find(kVcompCapsetEnv)) << error;
  }
  CapsetMap map;
  std::string error;
  EXPECT_FALSE(parse_capset_map("4", "4", &map, &error));  // both on one id
  EXPECT_FALSE(parse_capset_map(nullptr, "2", &map, &error));  // the default vcomp id
}

}  // namespace
}  // namespace gsvirt::virgl_abi::testing
