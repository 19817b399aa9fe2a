#pragma once

// INFO clients' client_recent_max_input_buffer and client_recent_max_output_buffer: the largest
// query buffer and the largest batch of replies any client held in about the last eight
// seconds, as Redis keeps one slot a second for eight seconds (CLIENTS_PEAK_MEM_USAGE_SLOTS).
// Sessions note their sizes as they read and send (one comparison each); the cron folds those
// into the current second's slot. A spike shows for its eight seconds, even when it was over
// before INFO ran.

#include <array>
#include <cstddef>
#include <cstdint>

namespace sluice::server {

class BufferPeaks {
 public:
  void NoteInput(size_t bytes) {
    if (bytes > pending_input_) pending_input_ = bytes;
  }
  void NoteOutput(size_t bytes) {
    if (bytes > pending_output_) pending_output_ = bytes;
  }

  // The cron: what was noted since the last tick goes to the slot of `now_ms`'s second.
  void Tick(int64_t now_ms);

  // The largest sizes in the last kSeconds seconds before `now_ms`, what is not folded yet
  // included.
  size_t RecentMaxInput(int64_t now_ms) const;
  size_t RecentMaxOutput(int64_t now_ms) const;

  static constexpr int64_t kSeconds = 8;

 private:
  struct Slot {
    int64_t second = -1;  // which second it holds (none yet: -1)
    size_t input = 0;
    size_t output = 0;
  };
  template <typename Field>
  size_t RecentMax(int64_t now_ms, Field field, size_t pending) const;

  std::array<Slot, kSeconds> slots_{};
  size_t pending_input_ = 0;
  size_t pending_output_ = 0;
};

}  // namespace sluice::server
