#include "storage/memtable_skiplist.h"

#include <algorithm>
#include <cassert>
#include <new>
#include <random>
#include <vector>

#include "storage/memtable_key_order.h"

namespace sluice::storage {

namespace {

// Each level links about a quarter of the entries of the level below.
constexpr uint64_t kBranching = 4;

uint64_t NextRandom(uint64_t* state) {  // xorshift64*
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

[[maybe_unused]] bool SameSign(int x, int y) { return (x > 0) - (x < 0) == (y > 0) - (y < 0); }

}  // namespace

MemtableSkipList::MemtableSkipList(const rocksdb::MemTableRep::KeyComparator* reference_order)
    : kHead(reinterpret_cast<const char*>(head_links_ + kMaxHeight)),
      random_state_(0x9E3779B97F4A7C15ull),
      reference_order_(reference_order) {
  for (Link& link : head_links_) link.store(nullptr, std::memory_order_relaxed);
}

int MemtableSkipList::Compare(const char* entry, const rocksdb::Slice& internal_key) const {
  const int r = CompareInternalKeysBytewise(EntryInternalKey(entry), internal_key);
  assert(reference_order_ == nullptr || SameSign(r, (*reference_order_)(entry, internal_key)));
  return r;
}

MemtableSkipList::NodeShape MemtableSkipList::NextNodeShape(size_t entry_size) {
  int height = 1;
  while (height < kMaxHeight && NextRandom(&random_state_) % kBranching == 0) ++height;
  // Room to align the links, which the arena's unaligned allocations do not.
  return {height, height * sizeof(Link) + entry_size + alignof(Link) - 1};
}

char* MemtableSkipList::PlaceNode(char* memory, NodeShape shape) {
  const uintptr_t aligned =
      (reinterpret_cast<uintptr_t>(memory) + alignof(Link) - 1) & ~uintptr_t{alignof(Link) - 1};
  Link* links = reinterpret_cast<Link*>(aligned);
  for (int i = 0; i < shape.height; ++i) new (&links[i]) Link(nullptr);
  char* entry = reinterpret_cast<char*>(links + shape.height);
  // Until Insert: the height, in the level-0 link (the node is not linked anywhere yet).
  LinkOf(entry, 0).store(reinterpret_cast<const char*>(static_cast<uintptr_t>(shape.height)),
                         std::memory_order_relaxed);
  return entry;
}

int MemtableSkipList::FindSplice(const rocksdb::Slice& key, const char** before, const char** after,
                                 const Splice* start, int levels) const {
  const int height = height_.load(std::memory_order_relaxed);
  const char* x = kHead;
  const char* bound = nullptr;  // known to sort at or after `key`: no need to compare it
  int top = height - 1;         // where the descent starts
  if (start != nullptr) {
    // The descent starts at the lowest level whose splice nodes are still neighbours with the
    // key between them. (From a node merely before the key, a level could have every node
    // inserted since to pass: a batch of neighbouring new keys, searched before any was
    // inserted, would cost its inserts quadratic time.) The levels above that are asked for
    // walk on from the splice's node before the key, past what came in since; at levels the
    // list grew since the search, from the level above's.
    for (int low = 0; low < start->height; ++low) {
      const char* next = start->after[low];
      if (Next(start->before[low], low) != next) continue;
      if (next != nullptr && Compare(next, key) < 0) continue;
      const char* at = kHead;
      for (int level = std::min(height, levels) - 1; level > low; --level) {
        if (level < start->height) at = start->before[level];
        const char* above = Next(at, level);
        while (above != nullptr && Compare(above, key) < 0) {
          at = above;
          above = Next(at, level);
        }
        before[level] = at;
        after[level] = above;
      }
      top = low;
      x = start->before[low];
      bound = next;
      break;
    }
  }
  for (int level = top; level >= 0; --level) {
    const char* next = Next(x, level);
    while (next != bound) {
      // The node after `next` at this level (and, for the way down, at the level below)
      // starts loading while `next` is compared: each step's cache miss overlaps the last's.
      __builtin_prefetch(Next(next, level));
      if (level > 0) __builtin_prefetch(Next(next, level - 1));
      if (Compare(next, key) >= 0) break;
      x = next;
      next = Next(x, level);
    }
    before[level] = x;
    after[level] = next;
    bound = next;
  }
  return height;
}

bool MemtableSkipList::Insert(const char* entry, const Splice* start) {
  const int height = static_cast<int>(
      reinterpret_cast<uintptr_t>(LinkOf(entry, 0).load(std::memory_order_relaxed)));
  const rocksdb::Slice key = EntryInternalKey(entry);
  const char* before[kMaxHeight];
  const char* after[kMaxHeight];
  const int list_height = FindSplice(key, before, after, start, height);
  if (after[0] != nullptr && Compare(after[0], key) == 0) return false;

  for (int i = list_height; i < height; ++i) {
    before[i] = kHead;
    after[i] = nullptr;
  }
  // The node's own links first, then the links to it, bottom-up: a reader that reaches it
  // at some level finds its links at that level and below already set.
  for (int i = 0; i < height; ++i) LinkOf(entry, i).store(after[i], std::memory_order_relaxed);
  for (int i = 0; i < height; ++i) LinkOf(before[i], i).store(entry, std::memory_order_release);
  if (height > list_height) height_.store(height, std::memory_order_relaxed);
  return true;
}

const char* MemtableSkipList::FindGreaterOrEqual(const rocksdb::Slice& internal_key) const {
  const char* before[kMaxHeight];
  const char* after[kMaxHeight];
  FindSplice(internal_key, before, after);
  return after[0];
}

const char* MemtableSkipList::FindLessThan(const rocksdb::Slice& internal_key) const {
  const char* before[kMaxHeight];
  const char* after[kMaxHeight];
  FindSplice(internal_key, before, after);
  return before[0] == kHead ? nullptr : before[0];
}

const char* MemtableSkipList::FindLessOrEqual(const rocksdb::Slice& internal_key) const {
  const char* before[kMaxHeight];
  const char* after[kMaxHeight];
  FindSplice(internal_key, before, after);
  if (after[0] != nullptr && Compare(after[0], internal_key) == 0) return after[0];
  return before[0] == kHead ? nullptr : before[0];
}

bool MemtableSkipList::Contains(const char* entry) const {
  const rocksdb::Slice key = EntryInternalKey(entry);
  const char* found = FindGreaterOrEqual(key);
  return found != nullptr && Compare(found, key) == 0;
}

const char* MemtableSkipList::Last() const {
  const char* x = kHead;
  for (int level = height_.load(std::memory_order_relaxed) - 1; level >= 0; --level) {
    for (const char* next = Next(x, level); next != nullptr; next = Next(x, level)) x = next;
  }
  return x == kHead ? nullptr : x;
}

void MemtableSkipList::SearchTogether(std::span<const rocksdb::Slice> internal_keys,
                                      Splice* splices) const {
  // Eight searches at a time: about as many cache misses as a core keeps in flight.
  constexpr size_t kLanes = 8;
  struct Search {
    size_t index;       // of its key and splice
    const char* at;     // the last node known to sort before the key
    const char* next;   // its successor at `level`: the node to compare next
    const char* bound;  // known to sort at or after the key (nullptr: the end)
    int level;
  };
  auto touch = [](const Search& search) {
    if (search.next == nullptr) return;
    __builtin_prefetch(search.next);
    __builtin_prefetch(&LinkOf(search.next, search.level));
  };
  const int height = height_.load(std::memory_order_relaxed);
  size_t taken = 0;
  auto begin = [&](Search& search) {
    splices[taken].height = height;
    search = {taken++, kHead, Next(kHead, height - 1), nullptr, height - 1};
    touch(search);
  };
  Search searches[kLanes];
  size_t active = 0;
  while (active < kLanes && taken < internal_keys.size()) begin(searches[active++]);
  while (active > 0) {
    for (size_t i = 0; i < active;) {
      Search& search = searches[i];
      if (search.next != search.bound && Compare(search.next, internal_keys[search.index]) < 0) {
        search.at = search.next;
        search.next = Next(search.at, search.level);
        touch(search);
        ++i;
        continue;
      }
      splices[search.index].before[search.level] = search.at;
      splices[search.index].after[search.level] = search.next;
      if (search.level > 0) {
        search.bound = search.next;
        --search.level;
        search.next = Next(search.at, search.level);
        touch(search);
        ++i;
      } else if (taken < internal_keys.size()) {  // done: the next key takes its place
        begin(search);
        ++i;
      } else {
        search = searches[--active];
      }
    }
  }
}

uint64_t MemtableSkipList::EstimateCountBefore(const rocksdb::Slice& internal_key) const {
  const int height = height_.load(std::memory_order_relaxed);
  uint64_t span = 1;  // about how many entries a step at the level passes over
  for (int level = 1; level < height; ++level) span *= kBranching;
  uint64_t count = 0;
  const char* x = kHead;
  for (int level = height - 1; level >= 0; --level, span /= kBranching) {
    for (const char* next = Next(x, level); next != nullptr && Compare(next, internal_key) < 0;
         next = Next(x, level)) {
      x = next;
      count += span;
    }
  }
  return count;
}

const char* MemtableSkipList::RandomEntry(uint64_t* random_state) const {
  // At each level, one of the level's entries in the range the level above left, uniformly;
  // the range below is from it to the next entry of this level.
  std::vector<const char*> candidates;
  const char* x = kHead;
  const char* limit = nullptr;
  for (int level = height_.load(std::memory_order_relaxed) - 1; level >= 0; --level) {
    candidates.clear();
    for (const char* node = x; node != limit; node = Next(node, level)) candidates.push_back(node);
    const size_t pick = NextRandom(random_state) % candidates.size();
    x = candidates[pick];
    if (pick + 1 < candidates.size()) limit = candidates[pick + 1];
  }
  return x == kHead ? First() : x;
}

void MemtableSkipList::UniqueRandomSample(uint64_t entries, uint64_t target,
                                          std::unordered_set<const char*>* sample) const {
  if (target >= entries) {
    for (const char* x = First(); x != nullptr; x = Next(x)) sample->insert(x);
    return;
  }
  uint64_t random_state = std::random_device()() | 1;
  if (target * target > entries) {
    // One pass, each entry taken with probability (still needed) / (still to come): exactly
    // `target` entries, uniformly (Knuth's selection sampling).
    uint64_t needed = target;
    uint64_t remaining = entries;
    for (const char* x = First(); x != nullptr && needed > 0; x = Next(x)) {
      if (NextRandom(&random_state) % std::max<uint64_t>(remaining, 1) < needed) {
        sample->insert(x);
        --needed;
      }
      if (remaining > 1) --remaining;
    }
    return;
  }
  // Few entries from many: random descents, which rarely meet twice.
  for (uint64_t tries = 0; sample->size() < target && tries < 4 * target; ++tries) {
    if (const char* x = RandomEntry(&random_state); x != nullptr) sample->insert(x);
  }
}

// --- Iterator ---------------------------------------------------------------------------------

namespace {

// Memory of arena iterators that RocksDB destroyed, for the next one made on this thread.
struct IteratorPool {
  std::vector<void*> blocks;
  ~IteratorPool() {
    for (void* block : blocks) ::operator delete(block);
  }
};
thread_local IteratorPool iterator_pool;

}  // namespace

MemtableSkipList::Iterator* MemtableSkipList::Iterator::New(const MemtableSkipList* list,
                                                            bool in_arena) {
  if (!in_arena) return new Iterator(list, false);
  void* memory = nullptr;
  if (!iterator_pool.blocks.empty()) {
    memory = iterator_pool.blocks.back();
    iterator_pool.blocks.pop_back();
  } else {
    memory = ::operator new(sizeof(Iterator));
  }
  return new (memory) Iterator(list, true);
}

MemtableSkipList::Iterator::~Iterator() {
  // RocksDB only runs the destructor of an iterator in its arena: the memory stays this one's.
  if (in_arena_) iterator_pool.blocks.push_back(this);
}

void MemtableSkipList::Iterator::Prev() { entry_ = list_->FindLessThan(EntryInternalKey(entry_)); }

void MemtableSkipList::Iterator::Seek(const rocksdb::Slice& internal_key,
                                      const char* /*memtable_key*/) {
  entry_ = list_->FindGreaterOrEqual(internal_key);
}

void MemtableSkipList::Iterator::SeekForPrev(const rocksdb::Slice& internal_key,
                                             const char* /*memtable_key*/) {
  entry_ = list_->FindLessOrEqual(internal_key);
}

}  // namespace sluice::storage
