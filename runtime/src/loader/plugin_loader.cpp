#include "loader/plugin_loader.hpp"

#include "loader/elf_probe.hpp"
#include "registry/registrar.hpp"
#include "registry/registry.hpp"
#include "support/log.hpp"
#include "support/status.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

namespace tileops::detail {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kBuiltinPrefix = "libtileops_builtin_";

void fail(const std::string& path, std::string stage, std::string reason) {
  Registry::get().record_failure({path, std::move(stage), std::move(reason)});
}

std::string version_text(uint32_t v) {
  return std::to_string(v >> 16) + "." + std::to_string(v & 0xffff);
}

// The dlerror text inside Boost.DLL's exception message.
std::string dlerror_of(const std::exception& e) {
  std::string what = e.what();
  const std::string marker = "dlerror system message: ";
  auto at = what.find(marker);
  if (at == std::string::npos) return what;
  std::string text = what.substr(at + marker.size());
  if (!text.empty() && text.back() == ')') text.pop_back();
  return text;
}

// Explains a failed dlopen: the ELF header tells wrong files apart; an ELF file for
// this machine that still fails is almost always missing a library it needs.
std::string open_failure(const std::string& path, const std::string& dlerror) {
  if (auto mismatch = elf_mismatch(path)) return *mismatch + " (" + dlerror + ")";
  if (dlerror.find("cannot open shared object file") != std::string::npos &&
      dlerror.rfind(path, 0) != 0)
    return "missing dependency: " + dlerror;
  return dlerror;
}

// Libraries stay loaded for the life of the process: code and data registered from
// them (and any threads they started) may be in use until exit.
std::vector<boost::dll::shared_library>& opened_libraries() {
  static auto* libs = new std::vector<boost::dll::shared_library>();
  return *libs;
}

void load_file(const std::string& path, bool builtin) {
  boost::dll::shared_library lib;
  try {
    lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    fail(path, "open", open_failure(path, dlerror_of(e)));
    return;
  }
  opened_libraries().push_back(lib);
  for (const char* symbol : {TILEOPS_PLUGIN_ABI_VERSION_SYMBOL, TILEOPS_PLUGIN_ENTRY_SYMBOL}) {
    if (!lib.has(symbol)) {
      fail(path, "symbol",
           std::string("no exported symbol ") + symbol +
               ": not a tileops plugin (a plugin exports tileops_plugin_abi_version and "
               "tileops_plugin_entry)");
      return;
    }
  }
  uint32_t version = 0;
  try {
    version = lib.get<uint32_t()>(TILEOPS_PLUGIN_ABI_VERSION_SYMBOL)();
  } catch (...) {
    fail(path, "abi_version", "tileops_plugin_abi_version threw" + thrown_detail());
    return;
  }
  if (version >> 16 != TILEOPS_ABI_MAJOR) {
    fail(path, "abi_version",
         "plugin ABI " + version_text(version) + " does not match host ABI " +
             version_text(TILEOPS_ABI_VERSION) + ": a different major version cannot be loaded");
    return;
  }
  auto& entry = lib.get<std::remove_pointer_t<tileops_plugin_entry_fn>>(TILEOPS_PLUGIN_ENTRY_SYMBOL);
  run_entry(path, &entry, version, builtin);
}

std::vector<std::string> plugin_files(const PluginDir& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir.path, ec)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() != ".so" || !e.is_regular_file(ec)) continue;
    if (dir.builtin != (name.rfind(kBuiltinPrefix, 0) == 0)) continue;
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void append_summary(PluginInfo& info, const Staged& staged) {
  for (const auto& d : staged.detectors) info.targets.push_back(d.target);
  for (const auto& b : staged.builders) {
    if (std::find(info.targets.begin(), info.targets.end(), b.target) == info.targets.end())
      info.targets.push_back(b.target);
    info.ops.push_back(b.op);
  }
  for (const auto& k : staged.kernel_types) info.kernel_types.push_back(k.op + "/" + k.key);
  for (const auto& r : staged.runtimes) info.device_types.push_back(r.device_type);
  std::sort(info.ops.begin(), info.ops.end());
  info.ops.erase(std::unique(info.ops.begin(), info.ops.end()), info.ops.end());
}

}  // namespace

std::vector<PluginDir> plugin_dirs() {
  std::vector<PluginDir> dirs;
  std::error_code ec;
  fs::path located = boost::dll::this_line_location().parent_path().string();
  fs::path runtime_dir = fs::weakly_canonical(located, ec);
  if (ec) runtime_dir = located;
  dirs.push_back({runtime_dir.string(), true});
  if (const char* env = secure_getenv("TILEOPS_PLUGIN_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      auto colon = rest.find(':');
      auto item = rest.substr(0, colon);
      if (!item.empty()) dirs.push_back({std::string(item), false});
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  dirs.push_back({(runtime_dir / "tileops" / "plugins").string(), false});
  return dirs;
}

void load_all_plugins() {
  // Asked on every tensor allocation: once done, one acquire load answers (std::call_once
  // writes two thread-locals on every call, even when the work is done).
  static std::atomic<bool> done{false};
  if (done.load(std::memory_order_acquire)) return;
  // A log sink (a load failure's warning) or a plugin entry that asks for the plugins
  // while this thread loads them gets what has loaded so far: std::call_once would wait
  // for itself.
  static thread_local bool loading_here = false;
  if (loading_here) return;
  static std::once_flag once;
  std::call_once(once, [] {
    loading_here = true;
    struct Unmark {
      ~Unmark() { loading_here = false; }
    } unmark_on_exit;
    std::set<std::string> seen;
    for (const auto& dir : plugin_dirs()) {
      for (const auto& file : plugin_files(dir)) {
        std::error_code ec;
        auto canonical = fs::canonical(file, ec).string();
        if (!seen.insert(ec ? file : canonical).second) continue;
        load_file(file, dir.builtin);
      }
    }
  });
  done.store(true, std::memory_order_release);
}

bool run_entry(const std::string& path, tileops_plugin_entry_fn entry, uint32_t abi_version,
               bool builtin) {
  auto& registry = Registry::get();
  std::lock_guard lock(registry.commit_mutex());
  auto record = std::make_shared<PluginRecord>();
  record->info.path = path;
  record->info.abi_version = abi_version;
  record->info.builtin = builtin;
  tileops_registrar reg{&registry.snapshot(), {}, record, builtin, {}};
  tileops_plugin_info info{sizeof info, nullptr, nullptr, nullptr};
  tileops_error err;
  tileops_status status = TILEOPS_OK;
  try {
    status = entry(&host_api(), &reg, &info, &err);
  } catch (const std::exception& e) {
    fail(path, "entry", std::string("entry threw: ") + e.what());
    return false;
  } catch (...) {
    fail(path, "entry", "entry threw an exception that is not a std::exception");
    return false;
  }
  if (reg.refusal) {
    fail(path, "register", *reg.refusal);
    return false;
  }
  if (status != TILEOPS_OK) {
    fail(path, "entry", "entry failed: " + describe(err, status));
    return false;
  }
  auto& plugin = record->info;
  plugin.name = info.name ? info.name : fs::path(path).stem().string();
  plugin.version = info.version ? info.version : "";
  plugin.build_id = info.build_id ? info.build_id : "";
  plugin.state = "loaded";
  append_summary(plugin, reg.staged);
  logger().debug("plugin {} ({}) loaded from {}", plugin.name, plugin.version, path);
  registry.commit(std::move(record), std::move(reg.staged));
  return true;
}

}  // namespace tileops::detail
