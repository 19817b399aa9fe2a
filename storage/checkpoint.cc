#include "storage/checkpoint.h"

#include <rocksdb/utilities/checkpoint.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

namespace sluice::storage {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTmpSuffix = ".tmp";

// "<seconds>" or "<seconds>-<n>" -> (seconds, n); false for anything else.
bool ParseName(std::string_view name, std::pair<int64_t, int64_t>* out) {
  const size_t dash = name.find('-');
  std::string_view seconds = name.substr(0, dash);
  std::string_view n = dash == std::string_view::npos ? std::string_view() : name.substr(dash + 1);
  auto parse = [](std::string_view s, int64_t* value) {
    if (s.empty()) return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *value);
    return ec == std::errc() && ptr == s.data() + s.size() && *value >= 0;
  };
  out->second = 0;
  if (!parse(seconds, &out->first)) return false;
  return dash == std::string_view::npos || parse(n, &out->second);
}

struct Entry {
  std::pair<int64_t, int64_t> order;
  fs::path path;
};

std::vector<Entry> Scan(const fs::path& root, std::vector<fs::path>* leftovers) {
  std::vector<Entry> entries;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const std::string name = it->path().filename().string();
    std::pair<int64_t, int64_t> order;
    if (ParseName(name, &order)) {
      entries.push_back({order, it->path()});
    } else if (leftovers != nullptr && name.size() > kTmpSuffix.size() &&
               name.compare(name.size() - kTmpSuffix.size(), kTmpSuffix.size(), kTmpSuffix) == 0) {
      leftovers->push_back(it->path());
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.order < b.order; });
  return entries;
}

}  // namespace

StatusOr<std::string> CreateCheckpoint(rocksdb::DB* db, const std::string& db_dir,
                                       int64_t now_unix_s, size_t keep) {
  const fs::path root = fs::absolute(fs::path(db_dir)) / kCheckpointsDirName;
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return IoError("can't create '" + root.string() + "': " + ec.message());

  std::vector<fs::path> leftovers;
  std::vector<Entry> existing = Scan(root, &leftovers);
  for (const fs::path& path : leftovers) fs::remove_all(path, ec);  // an interrupted one

  // Within one second, a suffix above every existing one: a name freed by the retention below
  // is never reused, so the newest checkpoint always sorts last.
  int64_t suffix = -1;
  for (const Entry& e : existing) {
    if (e.order.first == now_unix_s) suffix = std::max(suffix, e.order.second);
  }
  std::string name = std::to_string(now_unix_s);
  if (suffix >= 0) name += "-" + std::to_string(suffix + 1);
  const fs::path final_path = root / name;
  const fs::path tmp_path = root / (name + std::string(kTmpSuffix));

  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status s = rocksdb::Checkpoint::Create(db, &raw);
  if (!s.ok()) return IoError("checkpoint: " + s.ToString());
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  s = checkpoint->CreateCheckpoint(tmp_path.string());
  if (!s.ok()) {
    fs::remove_all(tmp_path, ec);
    return IoError("checkpoint: " + s.ToString());
  }
  fs::rename(tmp_path, final_path, ec);
  if (ec) {
    fs::remove_all(tmp_path, ec);
    return IoError("checkpoint: can't rename to '" + final_path.string() + "': " + ec.message());
  }

  // Keep the newest `keep`, the new one always among them (even if the clock went back).
  existing = Scan(root, nullptr);
  std::erase_if(existing, [&](const Entry& e) { return e.path == final_path; });
  const size_t keep_others = keep > 0 ? keep - 1 : 0;
  for (size_t i = 0; i + keep_others < existing.size(); ++i) fs::remove_all(existing[i].path, ec);
  return final_path.string();
}

std::vector<std::string> ListCheckpoints(const std::string& db_dir) {
  std::vector<std::string> paths;
  for (const Entry& e : Scan(fs::absolute(fs::path(db_dir)) / kCheckpointsDirName, nullptr)) {
    paths.push_back(e.path.string());
  }
  return paths;
}

}  // namespace sluice::storage
