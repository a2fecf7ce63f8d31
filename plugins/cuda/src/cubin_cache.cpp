#include <tileops/cuda/cubin_cache.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tileops::cuda::cache {
namespace fs = std::filesystem;

namespace {

// ---- little-endian fields ---------------------------------------------------------

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char(v >> (8 * i)));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char(v >> (8 * i)));
}
void put_bytes(std::string& out, std::string_view bytes) {
  put_u32(out, uint32_t(bytes.size()));
  out.append(bytes);
}

// Reads fields off a byte range; any read past the end marks it bad.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  uint64_t uint(int width) {
    if (rest_.size() < size_t(width)) return fail();
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= uint64_t(uint8_t(rest_[size_t(i)])) << (8 * i);
    rest_.remove_prefix(size_t(width));
    return v;
  }
  std::string bytes(uint64_t n) {
    if (rest_.size() < n) return fail(), std::string();
    std::string out(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return out;
  }
  std::string text() { return bytes(uint(4)); }
  bool ok() const { return ok_; }
  bool at_end() const { return rest_.empty(); }

 private:
  uint64_t fail() {
    ok_ = false;
    rest_ = {};
    return 0;
  }
  std::string_view rest_;
  bool ok_ = true;
};

std::string body_of(const Entry& entry) {
  std::string body;
  put_bytes(body, entry.description);
  put_u32(body, uint32_t(entry.symbols.size()));
  for (const auto& s : entry.symbols) {
    put_bytes(body, s.name_expression);
    put_bytes(body, s.lowered);
  }
  put_u64(body, entry.cubin.size());
  body.append(entry.cubin);
  return body;
}

std::string read_file(const std::string& path, bool& found) {
  std::ifstream in(path, std::ios::binary);
  found = bool(in);
  if (!found) return {};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

[[noreturn]] void system_failure(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

// ---- hashing ------------------------------------------------------------------------

std::string Digest::hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[size_t(15 - i)] = digits[(hi >> (4 * i)) & 0xf];
    out[size_t(31 - i)] = digits[(lo >> (4 * i)) & 0xf];
  }
  return out;
}

void Hasher::mix(std::string_view bytes) {
  // The FNV-128 prime is 2^88 + 0x13b: multiplying is a small product plus a shift.
  uint64_t hi = state_.hi, lo = state_.lo;
  for (unsigned char c : bytes) {
    lo ^= c;
    const unsigned __int128 low = (unsigned __int128)lo * 0x13bu;
    hi = hi * 0x13bu + uint64_t(low >> 64) + (lo << 24);
    lo = uint64_t(low);
  }
  state_ = {hi, lo};
}

Hasher& Hasher::add(std::string_view bytes) {
  add(uint64_t(bytes.size()));
  mix(bytes);
  return *this;
}

Hasher& Hasher::add(uint64_t value) {
  char raw[8];
  for (int i = 0; i < 8; ++i) raw[i] = char(value >> (8 * i));
  mix(std::string_view(raw, 8));
  return *this;
}

Digest Hasher::of(std::string_view head, std::string_view body) {
  Hasher h;
  h.mix(head);
  h.mix(body);
  return h.digest();
}

// ---- locations ----------------------------------------------------------------------

std::string default_root() {
  if (const char* dir = std::getenv("TILEOPS_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tileops";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tileops";
  return {};
}

std::string cuda_dir(const std::string& root) { return root + "/cuda"; }

std::string entry_path(const std::string& dir, const Digest& key) {
  return dir + "/" + key.hex() + ".cubin";
}

// ---- format -------------------------------------------------------------------------

std::string encode(const Entry& entry) {
  const std::string body = body_of(entry);
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kFormatVersion);
  put_u32(out, entry.arch);
  put_u32(out, entry.nvrtc_version);
  put_u32(out, 0);
  put_u64(out, body.size());
  const Digest sum = Hasher::of(out, body);
  put_u64(out, sum.hi);
  put_u64(out, sum.lo);
  return out + body;
}

std::optional<Entry> decode(std::string_view bytes, std::string* problem) {
  auto bad = [&](std::string why) -> std::optional<Entry> {
    if (problem) *problem = std::move(why);
    return std::nullopt;
  };
  if (bytes.size() < kHeaderBytes) return bad("shorter than the header");
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return bad("not a tileops cubin entry");
  Reader header(bytes.substr(sizeof kMagic, kHeaderBytes - sizeof kMagic));
  const auto version = uint32_t(header.uint(4));
  if (version != kFormatVersion)
    return bad("format version " + std::to_string(version) + ", expected " + std::to_string(kFormatVersion));
  Entry entry;
  entry.arch = uint32_t(header.uint(4));
  entry.nvrtc_version = uint32_t(header.uint(4));
  const uint64_t reserved = header.uint(4);
  const uint64_t body_size = header.uint(8);
  const Digest sum{header.uint(8), header.uint(8)};
  const std::string_view body = bytes.substr(kHeaderBytes);
  if (body.size() != body_size)
    return bad("body is " + std::to_string(body.size()) + " bytes, the header says " + std::to_string(body_size));
  if (!(Hasher::of(bytes.substr(0, kChecksumOffset), body) == sum)) return bad("checksum mismatch");
  if (reserved != 0) return bad("reserved field is " + std::to_string(reserved));
  Reader r(body);
  entry.description = r.text();
  const uint64_t n = r.uint(4);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    Symbol s;
    s.name_expression = r.text();
    s.lowered = r.text();
    entry.symbols.push_back(std::move(s));
  }
  entry.cubin = r.bytes(r.uint(8));
  if (!r.ok() || !r.at_end()) return bad("malformed body");
  return entry;
}

// ---- files --------------------------------------------------------------------------

Lookup read(const std::string& path, Entry& out, std::string& problem) {
  bool found = false;
  const std::string bytes = read_file(path, found);
  if (!found) return Lookup::missing;
  auto entry = decode(bytes, &problem);
  if (!entry) return Lookup::corrupt;
  out = std::move(*entry);
  return Lookup::hit;
}

void write(const std::string& path, const Entry& entry) {
  const fs::path target(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create " + target.parent_path().string() + ": " + ec.message());
  static std::atomic<unsigned> counter{0};
  const std::string tmp = (target.parent_path() / ("." + target.filename().string() + "." +
                                                   std::to_string(getpid()) + "." +
                                                   std::to_string(counter++) + ".tmp"))
                              .string();
  const std::string bytes = encode(entry);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) system_failure("cannot create", tmp);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = saved;
      system_failure("cannot write", tmp);
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    system_failure("cannot write", tmp);
  }
  // rename() replaces atomically: readers see the old entry or the new one, never a mix.
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    system_failure("cannot rename into", path);
  }
}

std::vector<Listing> list(const std::string& dir) {
  std::vector<Listing> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".cubin" || !e.is_regular_file(ec)) continue;
    Listing item;
    item.path = e.path().string();
    item.bytes = e.file_size(ec);
    Entry entry;
    item.valid = read(item.path, entry, item.problem) == Lookup::hit;
    entry.cubin.clear();
    item.entry = std::move(entry);
    out.push_back(std::move(item));
  }
  std::sort(out.begin(), out.end(), [](const Listing& a, const Listing& b) { return a.path < b.path; });
  return out;
}

size_t clear(const std::string& dir) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool entry = e.path().extension() == ".cubin";
    const bool leftover = name.size() > 4 && name.front() == '.' && name.ends_with(".tmp");
    if ((entry || leftover) && fs::remove(e.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace tileops::cuda::cache
