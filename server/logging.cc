#include "server/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sluice::server {
namespace {

constexpr char kLogPattern[] = "%P:M %d %b %Y %H:%M:%S.%e %^%L%$ %v";

// Opens the log file for appending as Redis does, before spdlog does: spdlog would create
// missing directories on the way, so a mistyped path would not be an error.
Status CheckLogFileOpens(const std::string& logfile) {
  std::FILE* file = std::fopen(logfile.c_str(), "a");
  if (file == nullptr) {
    return Err("can't open the log file '" + logfile + "': " + std::strerror(errno));
  }
  std::fclose(file);
  return Status::Ok();
}

}  // namespace

void ApplyLogLevel(const std::string& loglevel) {
  spdlog::level::level_enum level = spdlog::level::info;
  if (loglevel == "debug") level = spdlog::level::trace;
  if (loglevel == "verbose") level = spdlog::level::debug;
  if (loglevel == "notice") level = spdlog::level::info;
  if (loglevel == "warning") level = spdlog::level::warn;
  spdlog::set_level(level);
}

Status SetupLogging(const std::string& loglevel, const std::string& logfile) {
  if (!logfile.empty()) SLUICE_RETURN_IF_ERROR(CheckLogFileOpens(logfile));
  std::shared_ptr<spdlog::logger> logger;
  try {  // spdlog reports an unopenable file by throwing; it never reaches the command path
    if (logfile.empty()) {
      logger = spdlog::stderr_logger_st("sluiced");
    } else {
      logger = spdlog::basic_logger_st("sluiced", logfile);
    }
  } catch (const spdlog::spdlog_ex& e) {
    return Err("can't open the log file '" + logfile + "': " + e.what());
  }
  logger->set_pattern(kLogPattern);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  ApplyLogLevel(loglevel);
  return Status::Ok();
}

void ReopenLogFile(const std::string& logfile) {
  if (logfile.empty()) {
    spdlog::info("Received SIGHUP: logging to stderr, no log file to reopen");
    return;
  }
  if (Status opens = CheckLogFileOpens(logfile); !opens.ok()) {
    spdlog::warn("Received SIGHUP: {}, still using the old one", opens.message());
    return;
  }
  std::shared_ptr<spdlog::sinks::sink> sink;
  try {  // a new sink opens (creates) the file by name; the old one closes when replaced
    sink = std::make_shared<spdlog::sinks::basic_file_sink_st>(logfile);
  } catch (const spdlog::spdlog_ex& e) {
    spdlog::warn("Received SIGHUP: can't reopen the log file '{}', still using the old one: {}",
                 logfile, e.what());
    return;
  }
  sink->set_pattern(kLogPattern);
  spdlog::default_logger()->sinks().assign(1, sink);
  spdlog::info("Received SIGHUP: log file reopened");
}

}  // namespace sluice::server
