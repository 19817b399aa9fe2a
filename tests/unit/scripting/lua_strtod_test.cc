// The process's strtod (scripting/lua_strtod.cc) against glibc's, which it must equal in
// every result: the value bit for bit, where the number ends, and errno.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "fake_host.h"

extern "C" double __strtod_internal(const char* text, char** end, int group);
extern "C" double sluice_strtod(const char* text, char** end) noexcept;  // lua_strtod.cc's

namespace sluice::scripting {
namespace {

void ExpectAsGlibc(const std::string& text) {
  char* ours_end = nullptr;
  errno = 0;
  const double ours = strtod(text.c_str(), &ours_end);
  const int ours_errno = errno;
  char* glibc_end = nullptr;
  errno = 0;
  const double glibc = __strtod_internal(text.c_str(), &glibc_end, 0);
  const int glibc_errno = errno;
  EXPECT_EQ(std::bit_cast<uint64_t>(ours), std::bit_cast<uint64_t>(glibc)) << '"' << text << '"';
  EXPECT_EQ(ours_end - text.c_str(), glibc_end - text.c_str()) << '"' << text << '"';
  EXPECT_EQ(ours_errno, glibc_errno) << '"' << text << '"';
}

TEST(LuaStrtodTest, ReadsWhatGlibcReads) {
  const char* texts[] = {"0",
                         "-0",
                         "7",
                         "007",
                         "-007",
                         "1764698000",
                         "1764698000123",
                         "999999999999999",
                         "-999999999999999",
                         "9999999999999999",
                         "9007199254740993",
                         "12345678901234567890",
                         "1.5",
                         "12.",
                         "12e3",
                         "12E-3",
                         "0x1A",
                         "0X10",
                         "-0x10",
                         "00x1",
                         "12,5",
                         "12 ",
                         "12abc",
                         "12\n",
                         " 12",
                         "\t-3",
                         "+12",
                         "-",
                         "--1",
                         "-+1",
                         "",
                         "inf",
                         "-inf",
                         "nan",
                         ".5",
                         "-.5",
                         "1e400",
                         "1e-400",
                         "123456789012345.5",
                         "5\xc2\xb7"};
  for (const char* text : texts) ExpectAsGlibc(text);
}

TEST(LuaStrtodTest, RandomTextsReadAsGlibcReadsThem) {
  std::mt19937 rng(77);
  const std::string alphabet = "0123456789999-+.,eExX \tinfa";
  for (int i = 0; i < 200000; ++i) {
    std::string text(rng() % 20, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    ExpectAsGlibc(text);
  }
}

// Shared libraries (Lua's) bind strtod to the first definition the dynamic linker finds:
// lua_strtod.cc's (sluice_strtod is its other name), exported by the executable, not libc's.
TEST(LuaStrtodTest, TheDynamicLinkerFindsThisDefinition) {
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "strtod"), reinterpret_cast<void*>(&sluice_strtod));
}

// Lua's conversions through it, as scripts use them.
TEST(LuaStrtodTest, LuaConvertsNumbersAsBefore) {
  testing::FakeHost host;
  ScriptEngine engine{&host};
  using resp::Value;
  EXPECT_EQ(testing::Eval(engine, "return tonumber('1764698000') * 1000 + 123"),
            Value::Int(1764698000123));
  EXPECT_EQ(testing::Eval(engine, "return tostring(tonumber('-0'))"), Value::Bulk("-0"));
  EXPECT_EQ(testing::Eval(engine, "return tonumber('0x10') + tonumber('1e3') + tonumber(' 12 ')"),
            Value::Int(1028));
  EXPECT_EQ(testing::Eval(engine, "return tostring(tonumber('12abc'))"), Value::Bulk("nil"));
  EXPECT_EQ(testing::Eval(engine, "return tostring(tonumber('2.5') * 2)"), Value::Bulk("5"));
}

}  // namespace
}  // namespace sluice::scripting
