// FUNCTION LOAD's header line and names, with Redis 7.0's error texts (checked against
// redis-server 7.0.15).

#include "scripting/library_header.h"

#include <gtest/gtest.h>

namespace sluice::scripting {
namespace {

std::string ErrorOf(std::string_view payload) {
  auto header = ParseLibraryHeader(payload);
  return header.ok() ? "" : header.status().message();
}

TEST(LibraryHeaderTest, NameAndEngine) {
  auto header = ParseLibraryHeader("#!lua name=mylib\nreturn 1");
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->engine, "lua");
  EXPECT_EQ(header->name, "mylib");
  EXPECT_EQ(header->code_start, 16u);  // the newline stays with the code: line numbers hold
  auto spaced = ParseLibraryHeader("#!LUA   NAME=x  \n");
  ASSERT_TRUE(spaced.ok());
  EXPECT_EQ(spaced->engine, "LUA");
  EXPECT_EQ(spaced->name, "x");
}

TEST(LibraryHeaderTest, RedisErrors) {
  EXPECT_EQ(ErrorOf("return 1"), "Missing library metadata");
  EXPECT_EQ(ErrorOf("#!lua name=x"), "Invalid library metadata");
  EXPECT_EQ(ErrorOf("#!lua\nreturn 1"), "Library name was not given");
  EXPECT_EQ(ErrorOf("#!lua name=x foo=bar\n"), "Invalid metadata value given: foo=bar");
  EXPECT_EQ(ErrorOf("#!lua name=x name=y\n"),
            "Invalid metadata value, name argument was given multiple times");
}

TEST(LibraryHeaderTest, Names) {
  EXPECT_TRUE(IsValidFunctionName("a_B9"));
  EXPECT_TRUE(IsValidFunctionName("_"));
  EXPECT_FALSE(IsValidFunctionName(""));
  EXPECT_FALSE(IsValidFunctionName("x-y"));
  EXPECT_FALSE(IsValidFunctionName("a b"));
  EXPECT_FALSE(IsValidFunctionName("caf\xc3\xa9"));
}

}  // namespace
}  // namespace sluice::scripting
