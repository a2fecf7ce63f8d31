#pragma once
// The on-disk cache of compiled CUDA kernels (cubins), shared by the built-in CUDA
// plugin and by tools that list or clear it (`tileops cache list|clear`). Standard C++
// and POSIX only: link the static library tileops::cuda_cache (src/cubin_cache.cpp).
//
// Layout: <root>/cuda/<key>.cubin, root = $TILEOPS_CACHE_DIR, else
// $XDG_CACHE_HOME/tileops, else $HOME/.cache/tileops. The key is the FNV-1a-128 digest
// of everything the cubin depends on (sources with every header, options, arch, NVRTC
// version, plugin build id); the file format is in plugins/cuda/README.md. Entries are
// written to a temporary file and renamed into place, and carry a checksum that every
// read verifies, so a reader never trusts a torn or damaged file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::cuda::cache {

// A 128-bit digest, printed as 32 lowercase hex digits (high half first).
struct Digest {
  uint64_t hi = 0;
  uint64_t lo = 0;
  std::string hex() const;
  bool operator==(const Digest&) const = default;
};

// FNV-1a over 128 bits. `add` frames each piece with its length, so ("ab", "c") and
// ("a", "bc") differ.
class Hasher {
 public:
  Hasher& add(std::string_view bytes);
  Hasher& add(uint64_t value);
  Digest digest() const { return state_; }
  // The digest of `head` then `body`, unframed (as one string). An entry's checksum is
  // that of its header before the checksum and its body.
  static Digest of(std::string_view head, std::string_view body = {});

 private:
  void mix(std::string_view bytes);
  Digest state_{0x6c62272e07bb0142ull, 0x62b821756295c58dull};  // FNV-128 offset basis
};

struct Symbol {
  std::string name_expression;  // as given to NVRTC: "tileops_cuda::norm_reg<...>"
  std::string lowered;          // the mangled name to look up in the module
};

struct Entry {
  uint32_t arch = 0;           // e.g. 90
  uint32_t nvrtc_version = 0;  // major * 1000 + minor * 10
  std::string description;     // what was compiled, for listings
  std::vector<Symbol> symbols;
  std::string cubin;
};

inline constexpr char kMagic[8] = {'T', 'O', 'P', 'C', 'U', 'B', 'I', 'N'};
inline constexpr uint32_t kFormatVersion = 2;  // 1: the checksum covered the body only
inline constexpr size_t kChecksumOffset = 32;
inline constexpr size_t kHeaderBytes = 48;

// The cache root from the environment ("" when neither variable nor HOME is set).
std::string default_root();
// Where the CUDA plugin's entries live under a root.
std::string cuda_dir(const std::string& root);
std::string entry_path(const std::string& dir, const Digest& key);

std::string encode(const Entry& entry);
// nullopt, with the reason in `problem`, when `bytes` is not an intact entry.
std::optional<Entry> decode(std::string_view bytes, std::string* problem);

enum class Lookup { hit, missing, corrupt };
// Reads and verifies one entry; `problem` says what is wrong with a corrupt one.
Lookup read(const std::string& path, Entry& out, std::string& problem);
// Writes atomically (temporary file in the same directory, then rename), creating the
// directory. Throws std::runtime_error naming the path and the system error.
void write(const std::string& path, const Entry& entry);

struct Listing {
  std::string path;
  uint64_t bytes = 0;
  bool valid = false;
  std::string problem;  // when not valid
  Entry entry;          // header fields and symbols; cubin left empty
};
// Every *.cubin in `dir`, sorted by path.
std::vector<Listing> list(const std::string& dir);
// Removes every *.cubin and leftover temporary file in `dir`; returns how many.
size_t clear(const std::string& dir);

}  // namespace tileops::cuda::cache
