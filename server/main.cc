// sluiced: parse the configuration, open storage, serve until shutdown.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "server/config.h"
#include "server/logging.h"
#include "server/server.h"

namespace {

// `path` made absolute, without a trailing separator; as given if empty or if the working
// directory cannot be read.
std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  if (path.empty()) return path;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec).lexically_normal();
  if (ec) return path;
  if (!absolute.has_filename() && absolute != absolute.root_path()) {
    absolute = absolute.parent_path();
  }
  return absolute.string();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sluice::server;
  std::signal(SIGPIPE, SIG_IGN);

  StartAction action = StartAction::kRun;
  auto config = LoadConfig(argc, argv, &action);
  if (!config.ok()) {
    std::fprintf(stderr, "sluiced: %s\n", config.status().message().c_str());
    return 1;
  }
  if (action == StartAction::kPrintVersion) {
    std::printf("sluiced v=%s redis_version=7.0.0\n", SLUICE_VERSION);
    return 0;
  }
  if (action == StartAction::kPrintHelp) {
    std::printf("%s", UsageText(argv[0]).c_str());
    return 0;
  }
  sluice::Status logging = SetupLogging(config->loglevel, config->logfile);
  if (!logging.ok()) {
    std::fprintf(stderr, "sluiced: %s\n", logging.message().c_str());
    return 1;
  }
  // Absolute, as Redis keeps it (INFO's config_file, CONFIG REWRITE's target); `dir` too, as
  // Redis shows it (CONFIG GET dir is its working directory, where it moved).
  const std::string config_file = AbsolutePath(argc > 1 && argv[1][0] != '-' ? argv[1] : "");
  config->dir = AbsolutePath(config->dir);
  Server server(std::move(config).value(), config_file, argv[0]);
  sluice::Status started = server.Start();
  if (!started.ok()) {
    std::fprintf(stderr, "sluiced: %s\n", started.message().c_str());
    return 1;
  }
  return server.Run();
}
