//===--- DefaultChecks.cpp - linpipe-clangd -------------------------------===//
//
// See DefaultChecks.h.
//
//===----------------------------------------------------------------------===//

#include "DefaultChecks.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

namespace linpipe::clangd {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

// The findings are errors (the lint gate fails a build on them, and `--check` must fail on
// them), and -Wconsumed is suppressed: each of its stage findings is also a linpipe finding,
// worded more clearly, and one mistake should show one diagnostic.
const char LinpipeConfigFragment[] =
    "# Written by linpipe-clangd: the linpipe checks on by default, then the user's own config.\n"
    "Diagnostics:\n"
    "  ClangTidy:\n"
    "    Add: [linpipe-*]\n"
    "    FastCheckFilter: Loose\n"
    "    CheckOptions:\n"
    "      linpipe-linear-stage.FindingSeverity: error\n"
    "      linpipe-stage-protocol.FindingSeverity: error\n";
const char SuppressConsumed[] = "  Suppress: [consumed]\n";

// Whether the user's config removes linpipe checks (`Remove: [linpipe-*]`, flow or block
// style): then -Wconsumed is the only stage finding left, and must not stay hidden. (clangd's
// Suppress lists only grow, so a later config could not show it again.)
bool removesLinpipeChecks(llvm::StringRef UserConfig) {
  static const llvm::Regex Flow("Remove:[ \t]*\\[[^]]*linpipe-");
  static const llvm::Regex Block("Remove:[ \t]*\n([ \t]*-[^\n]*\n)*[ \t]*-[ \t]*['\"]?linpipe-");
  return Flow.match(UserConfig) || Block.match(UserConfig);
}

llvm::Error enableLinpipeChecksByDefault() {
  llvm::SmallString<256> UserConfig, Home;
  if (!path::user_config_directory(UserConfig) || !path::cache_directory(Home))
    return llvm::createStringError("no user config or cache folder");
  path::append(UserConfig, "clangd", "config.yaml");
  std::string Text = LinpipeConfigFragment;
  auto Own = llvm::MemoryBuffer::getFile(UserConfig);
  if (!Own || !removesLinpipeChecks((*Own)->getBuffer()))
    Text += SuppressConsumed;
  if (Own) {
    Text += "---\n";
    Text += (*Own)->getBuffer().str();
  }
  // One folder per combined text: linpipe-clangds running at once with different user configs
  // (or tests) never read each other's, and the same text is shared.
  path::append(Home, "linpipe-clangd", "config-" + llvm::utohexstr(llvm::xxh3_64bits(Text)));
  llvm::SmallString<256> Folder(Home);
  path::append(Folder, "clangd");
  if (std::error_code EC = fs::create_directories(Folder))
    return llvm::createStringError(EC, "cannot create " + Folder);

  // Written aside and renamed over: clangds starting together never read half a file.
  llvm::SmallString<256> Target(Folder), Temp;
  path::append(Target, "config.yaml");
  int Fd;
  if (std::error_code EC = fs::createUniqueFile(Target + ".%%%%%%", Fd, Temp))
    return llvm::createStringError(EC, "cannot write " + Target);
  {
    llvm::raw_fd_ostream Out(Fd, /*shouldClose=*/true);
    Out << Text;
  }
  if (std::error_code EC = fs::rename(Temp, Target)) {
    fs::remove(Temp);
    return llvm::createStringError(EC, "cannot write " + Target);
  }
  ::setenv("XDG_CONFIG_HOME", Home.c_str(), /*overwrite=*/1);
  return llvm::Error::success();
}

} // namespace linpipe::clangd
