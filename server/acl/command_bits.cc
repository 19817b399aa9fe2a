#include "server/acl/command_bits.h"

namespace sluice::server {

AclCommandBits EmptyCommandBits(const AclCommandIds& ids) {
  return AclCommandBits((ids.size() + 1 + 63) / 64, 0);
}

void SetBit(AclCommandBits& bits, size_t id, bool on) {
  const uint64_t mask = uint64_t{1} << (id % 64);
  if (on) {
    bits[id / 64] |= mask;
  } else {
    bits[id / 64] &= ~mask;
  }
}

void SetAllBits(AclCommandBits& bits, const AclCommandIds& ids, bool on) {
  for (size_t id = 0; id <= ids.size(); ++id) SetBit(bits, id, on);
}

void ChangeCommand(AclCommandBits& bits, const AclCommandIds& ids, size_t id, bool on) {
  SetBit(bits, id, on);
  const AclCommandIds::Entry& e = ids.entry(id);
  for (size_t i = 0; i < e.subs; ++i) SetBit(bits, e.first_sub + i, on);
}

void ChangeCategory(AclCommandBits& bits, const AclCommandIds& ids, int category, bool on) {
  const uint32_t mask = 1u << category;
  for (size_t id = 0; id < ids.size(); ++id) {
    if (ids.entry(id).categories & mask) ChangeCommand(bits, ids, id, on);
  }
}

void CountCategory(const AclCommandBits& bits, const AclCommandIds& ids, int category,
                   size_t* on, size_t* off) {
  *on = *off = 0;
  const uint32_t mask = 1u << category;
  for (size_t id = 0; id < ids.size(); ++id) {
    if (!(ids.entry(id).categories & mask)) continue;
    ++(TestBit(bits, id) ? *on : *off);
  }
}

bool AllCommandsAllowed(const AclCommandBits& bits, const AclCommandIds& ids) {
  for (size_t id = 0; id < ids.size(); ++id) {
    if (!TestBit(bits, id)) return false;
  }
  return true;
}

}  // namespace sluice::server
