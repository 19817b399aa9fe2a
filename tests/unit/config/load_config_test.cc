#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "server/config.h"

namespace sluice::server {
namespace {

using Words = std::vector<std::string>;

class LoadConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (std::filesystem::temp_directory_path() / "sluice-config-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    EXPECT_TRUE(out.good());
    return path;
  }

  // Runs LoadConfig over {"sluiced", args...}.
  static StatusOr<Config> Load(std::initializer_list<std::string> args,
                               StartAction* action = nullptr) {
    std::vector<std::string> storage = {"sluiced"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<const char*> argv;
    argv.reserve(storage.size() + 1);
    for (const std::string& s : storage) argv.push_back(s.c_str());
    argv.push_back(nullptr);
    StartAction ignored = StartAction::kRun;
    return LoadConfig(static_cast<int>(storage.size()), argv.data(),
                      action != nullptr ? action : &ignored);
  }

  std::filesystem::path dir_;
};

TEST_F(LoadConfigTest, NoArgumentsGiveDefaults) {
  StartAction action = StartAction::kPrintHelp;
  StatusOr<Config> config = Load({}, &action);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(action, StartAction::kRun);
  EXPECT_EQ(config->port, 6379);
  EXPECT_EQ(config->dir, "./sluice-data");
}

TEST_F(LoadConfigTest, ReadsTheConfigFile) {
  const std::string path = WriteFile("sluice.conf",
                                     "port 7000\n"
                                     "requirepass \"pass word\"\n"
                                     "policy api TOKENBUCKET 100 10 1000\n");
  StatusOr<Config> config = Load({path});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->port, 7000);
  EXPECT_EQ(config->requirepass, "pass word");
  ASSERT_EQ(config->policies.size(), 1u);
}

TEST_F(LoadConfigTest, CommandLineOverridesTheFile) {
  const std::string path = WriteFile("sluice.conf",
                                     "port 7000\n"
                                     "timeout 10\n"
                                     "bind 10.0.0.1\n"
                                     "policy a FIXEDWINDOW 1 1000\n");
  StatusOr<Config> config = Load({path, "--port", "7001", "--bind", "127.0.0.1", "::1", "--policy",
                                  "b", "GCRA", "1", "2", "3", "--loglevel", "verbose"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->port, 7001);
  EXPECT_EQ(config->timeout, 10) << "untouched by the command line";
  EXPECT_EQ(config->bind, (Words{"127.0.0.1", "::1"}));
  ASSERT_EQ(config->policies.size(), 2u) << "policies from both places";
  EXPECT_EQ(config->policies[0], (Words{"a", "FIXEDWINDOW", "1", "1000"}));
  EXPECT_EQ(config->policies[1], (Words{"b", "GCRA", "1", "2", "3"}));
  EXPECT_EQ(config->loglevel, "verbose");
}

TEST_F(LoadConfigTest, OptionsWithoutAFile) {
  StatusOr<Config> config = Load({"--port", "0", "--dir", "/tmp/x", "--protected-mode", "no"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->port, 0);
  EXPECT_EQ(config->dir, "/tmp/x");
  EXPECT_FALSE(config->protected_mode);
}

TEST_F(LoadConfigTest, BindTakesEveryValueUntilTheNextOption) {
  StatusOr<Config> config = Load({"--bind", "127.0.0.1", "::1", "10.0.0.7", "--port", "1"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->bind, (Words{"127.0.0.1", "::1", "10.0.0.7"}));
  EXPECT_EQ(config->port, 1);
}

TEST_F(LoadConfigTest, BindAsOneQuotedArgument) {
  StatusOr<Config> config = Load({"--bind", "127.0.0.1 ::1"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->bind, (Words{"127.0.0.1", "::1"}));
}

TEST_F(LoadConfigTest, NameAndValueInOneArgument) {
  StatusOr<Config> config = Load({"--port 7002", "--timeout", "5"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->port, 7002);
  EXPECT_EQ(config->timeout, 5);
}

TEST_F(LoadConfigTest, FirstWordAfterANameIsAlwaysItsValue) {
  // As redis-server 7.0.1+: `--requirepass --secret` sets the password "--secret".
  StatusOr<Config> config = Load({"--requirepass", "--secret", "--port", "1"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->requirepass, "--secret");
  EXPECT_EQ(config->port, 1);
}

TEST_F(LoadConfigTest, ValuesAreTakenVerbatim) {
  StatusOr<Config> config = Load({"--requirepass", "a \"b\" c", "--dir", "with space"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->requirepass, "a \"b\" c");
  EXPECT_EQ(config->dir, "with space");
}

TEST_F(LoadConfigTest, EmptyValueOnTheCommandLine) {
  StatusOr<Config> config = Load({"--requirepass", "", "--bind", ""});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->requirepass, "");
  EXPECT_TRUE(config->bind.empty());
}

TEST_F(LoadConfigTest, DirectiveNamesAreCaseInsensitiveOnTheCommandLine) {
  StatusOr<Config> config = Load({"--PORT", "7003"});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->port, 7003);
}

TEST_F(LoadConfigTest, VersionAndHelp) {
  for (const char* arg : {"-v", "--version"}) {
    StartAction action = StartAction::kRun;
    StatusOr<Config> config = Load({arg}, &action);
    ASSERT_TRUE(config.ok()) << arg;
    EXPECT_EQ(action, StartAction::kPrintVersion) << arg;
  }
  for (const char* arg : {"-h", "--help"}) {
    StartAction action = StartAction::kRun;
    StatusOr<Config> config = Load({arg}, &action);
    ASSERT_TRUE(config.ok()) << arg;
    EXPECT_EQ(action, StartAction::kPrintHelp) << arg;
  }
}

TEST_F(LoadConfigTest, VersionAfterOptionsAnswersWithoutReadingTheFile) {
  StartAction action = StartAction::kRun;
  StatusOr<Config> config =
      Load({(dir_ / "missing.conf").string(), "--port", "1", "--version"}, &action);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(action, StartAction::kPrintVersion);
}

TEST_F(LoadConfigTest, VersionAsAValueIsAValue) {
  StartAction action = StartAction::kRun;
  StatusOr<Config> config = Load({"--requirepass", "--version"}, &action);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(action, StartAction::kRun);
  EXPECT_EQ(config->requirepass, "--version");
}

TEST_F(LoadConfigTest, UsageMentionsTheForms) {
  const std::string usage = UsageText("sluiced");
  EXPECT_NE(usage.find("sluiced [/path/to/sluice.conf] [--directive value ...]"),
            std::string::npos);
  EXPECT_NE(usage.find("--version"), std::string::npos);
  EXPECT_NE(usage.find("--help"), std::string::npos);
}

TEST_F(LoadConfigTest, MissingFileIsOneClearLine) {
  const std::string path = (dir_ / "missing.conf").string();
  StatusOr<Config> config = Load({path});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "can't read config file '" + path + "': No such file or directory");
}

TEST_F(LoadConfigTest, DirectoryAsConfigFileIsRefused) {
  StatusOr<Config> config = Load({dir_.string()});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message().rfind("can't read config file '" + dir_.string() + "': ", 0),
            0u)
      << config.status().message();
}

TEST_F(LoadConfigTest, FileErrorsNameTheLine) {
  const std::string path = WriteFile("bad.conf", "port 7000\n\nmaxclients lots\n");
  StatusOr<Config> config = Load({path, "--port", "1"});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "config line 3: 'maxclients' must be an integer between 1 and 4294967295, got "
            "'lots'");
}

TEST_F(LoadConfigTest, CommandLineErrorsSayWhere) {
  StatusOr<Config> bad_value = Load({"--port", "abc"});
  ASSERT_FALSE(bad_value.ok());
  EXPECT_EQ(bad_value.status().message(),
            "command line: 'port' must be an integer between 0 and 65535, got 'abc'");

  StatusOr<Config> unknown = Load({"--no-such-thing", "1"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "command line: unknown directive 'no-such-thing'");

  StatusOr<Config> missing_value = Load({"--port"});
  ASSERT_FALSE(missing_value.ok());
  EXPECT_EQ(missing_value.status().message(),
            "command line: wrong number of arguments for 'port' (expects 1 value, got 0)");

  StatusOr<Config> too_many = Load({"--port", "1", "2"});
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().message(),
            "command line: wrong number of arguments for 'port' (expects 1 value, got 2)");
}

TEST_F(LoadConfigTest, StrayArgumentsAreRefused) {
  const std::string path = WriteFile("sluice.conf", "port 7000\n");
  StatusOr<Config> two_files = Load({path, path});
  ASSERT_FALSE(two_files.ok());
  EXPECT_EQ(two_files.status().message(), "command line: unexpected argument '" + path +
                                              "' (expected [CONFIG_FILE] [--directive value ...])");

  StatusOr<Config> single_dash = Load({"-x"});
  ASSERT_FALSE(single_dash.ok());
  EXPECT_EQ(single_dash.status().message(),
            "command line: unexpected argument '-x' (expected [CONFIG_FILE] [--directive value "
            "...])");

  StatusOr<Config> bare = Load({"--"});
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.status().message(), "command line: bad option '--'");
}

TEST_F(LoadConfigTest, FileErrorWinsOverALaterCommandLineFix) {
  // The file is applied first and must be valid by itself.
  const std::string path = WriteFile("sluice.conf", "port abc\n");
  StatusOr<Config> config = Load({path, "--port", "7000"});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "config line 1: 'port' must be an integer between 0 and 65535, got 'abc'");
}

}  // namespace
}  // namespace sluice::server
