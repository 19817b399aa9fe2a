// sluiced: parse the configuration, open storage, serve until shutdown.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include "server/config.h"
#include "server/logging.h"
#include "server/server.h"

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
  // Absolute, as Redis keeps it (INFO's config_file, CONFIG REWRITE's target); as given if
  // the working directory cannot be read.
  std::string config_file = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
  if (std::error_code ec; !config_file.empty()) {
    std::filesystem::path absolute = std::filesystem::absolute(config_file, ec);
    if (!ec) config_file = absolute.lexically_normal().string();
  }
  Server server(std::move(config).value(), config_file, argv[0]);
  sluice::Status started = server.Start();
  if (!started.ok()) {
    std::fprintf(stderr, "sluiced: %s\n", started.message().c_str());
    return 1;
  }
  return server.Run();
}
