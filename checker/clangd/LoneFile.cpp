//===--- LoneFile.cpp - linpipe-clangd ------------------------------------===//
//
// See LoneFile.h.
//
//===----------------------------------------------------------------------===//

#include "LoneFile.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include <cstdlib>
#include <optional>
#include <utility>

#ifndef LINPIPE_TIDY_SOURCE_TOOL
#error "LINPIPE_TIDY_SOURCE_TOOL must name checker/tools/linpipe-tidy"
#endif

namespace linpipe::clangd {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

std::string nearestCompileCommands(llvm::StringRef File) {
  llvm::SmallString<256> Dir(File);
  fs::make_absolute(Dir);
  path::remove_dots(Dir, /*remove_dot_dot=*/true);
  for (llvm::StringRef D = path::parent_path(Dir); !D.empty(); D = path::parent_path(D)) {
    for (auto [Sub, Name] : {std::pair{"", "compile_commands.json"},
                             std::pair{"build", "compile_commands.json"},
                             std::pair{"", "compile_flags.txt"}}) {
      llvm::SmallString<256> Candidate(D);
      path::append(Candidate, Sub, Name);
      if (fs::exists(Candidate))
        return std::string(Candidate);
    }
    if (D == path::root_path(D))
      break;
  }
  return "";
}

bool hasCompileCommands(llvm::StringRef File) {
  if (!nearestCompileCommands(File).empty())
    return true;
  // A project .clangd may name its database elsewhere (CompileFlags: CompilationDatabase):
  // then the project decides, not linpipe-clangd.
  llvm::SmallString<256> Dir(File);
  fs::make_absolute(Dir);
  path::remove_dots(Dir, /*remove_dot_dot=*/true);
  for (llvm::StringRef D = path::parent_path(Dir); !D.empty(); D = path::parent_path(D)) {
    llvm::SmallString<256> Config(D);
    path::append(Config, ".clangd");
    if (auto Text = llvm::MemoryBuffer::getFile(Config);
        Text && (*Text)->getBuffer().contains("CompilationDatabase"))
      return true;
    if (D == path::root_path(D))
      break;
  }
  return false;
}

bool importsLinpipe(llvm::StringRef Source) {
  static const llvm::Regex Import("(^|\n)[ \t]*(export[ \t]+)?import[ \t]+linpipe[ \t]*;");
  return Import.match(Source);
}

std::string linpipeTidyPath(const char *Argv0) {
  if (const char *Env = std::getenv("LINPIPE_TIDY"); Env && *Env) {
    if (llvm::ErrorOr<std::string> Found = llvm::sys::findProgramByName(Env))
      return *Found;
    return Env;
  }
  static int Anchor;
  llvm::SmallString<256> Beside(path::parent_path(fs::getMainExecutable(Argv0, &Anchor)));
  path::append(Beside, "linpipe-tidy");
  if (fs::can_execute(Beside))
    return std::string(Beside);
  return LINPIPE_TIDY_SOURCE_TOOL;
}

llvm::Expected<std::vector<std::string>> loneFileCommand(llvm::StringRef Tool,
                                                         llvm::StringRef File) {
  llvm::SmallString<128> Out;
  if (std::error_code EC = fs::createTemporaryFile("linpipe-clangd", "json", Out))
    return llvm::createStringError(EC, "cannot create a temporary file");
  llvm::scope_exit Remove([&] { fs::remove(Out); });
  // linpipe-tidy's stderr is clangd's log: the first use says it builds the module interfaces.
  // Its stdin is /dev/null: the editor's stream is clangd's alone. A cold build of the CUDA
  // flavours takes about a minute here; past 10 minutes it is given up.
  const std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), llvm::StringRef(Out),
                                                      std::nullopt};
  constexpr unsigned TimeoutSeconds = 600;
  std::string Message;
  const int Status =
      llvm::sys::ExecuteAndWait(Tool, {Tool, "--print-compile-command", File}, std::nullopt,
                                Redirects, TimeoutSeconds, 0, &Message);
  if (Status != 0)
    return llvm::createStringError("'" + Tool.str() + " --print-compile-command " + File.str() +
                                   "' failed" + (Message.empty() ? "" : ": " + Message));
  auto Buffer = llvm::MemoryBuffer::getFile(Out);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read linpipe-tidy's answer");
  llvm::Expected<llvm::json::Value> Json = llvm::json::parse((*Buffer)->getBuffer());
  if (!Json)
    return Json.takeError();
  std::vector<std::string> Command;
  const llvm::json::Array *Entries = Json->getAsArray();
  const llvm::json::Object *Entry =
      Entries && !Entries->empty() ? (*Entries)[0].getAsObject() : nullptr;
  const llvm::json::Array *Arguments = Entry ? Entry->getArray("arguments") : nullptr;
  if (!Arguments)
    return llvm::createStringError("linpipe-tidy printed no compile command for " + File.str());
  for (const llvm::json::Value &A : *Arguments)
    if (std::optional<llvm::StringRef> S = A.getAsString())
      Command.push_back(S->str());
  return Command;
}

} // namespace linpipe::clangd
