//===--- ProjectCommand.cpp - linpipe-clangd ------------------------------===//
//
// See ProjectCommand.h.
//
//===----------------------------------------------------------------------===//

#include "ProjectCommand.h"
#include "LoneFile.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"

namespace linpipe::clangd {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

std::optional<ProjectCommand> entryIn(llvm::StringRef Database, llvm::StringRef File) {
  std::string Error;
  std::unique_ptr<clang::tooling::JSONCompilationDatabase> Db =
      clang::tooling::JSONCompilationDatabase::loadFromFile(
          Database, Error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Db)
    return std::nullopt;
  std::vector<clang::tooling::CompileCommand> Commands = Db->getCompileCommands(File);
  if (Commands.empty())
    return std::nullopt;
  return ProjectCommand{Commands.front().Directory, std::move(Commands.front().CommandLine)};
}

std::string absoluteIn(llvm::StringRef Directory, llvm::StringRef Path) {
  llvm::SmallString<256> Out(Path);
  if (!path::is_absolute(Out)) {
    Out = Directory;
    path::append(Out, Path);
  }
  path::remove_dots(Out, /*remove_dot_dot=*/true);
  return std::string(Out);
}

// The interface named by -fmodule-file=[NAME=]PATH (CMake's modmaps quote the value).
std::optional<llvm::StringRef> moduleFileOf(llvm::StringRef Arg) {
  if (!Arg.consume_front("-fmodule-file="))
    return std::nullopt;
  Arg = Arg.trim('"');
  if (const size_t Eq = Arg.find('='); Eq != llvm::StringRef::npos)
    Arg = Arg.drop_front(Eq + 1);
  return Arg;
}

} // namespace

std::optional<ProjectCommand> projectCommand(llvm::StringRef File, llvm::StringRef DatabaseDir) {
  llvm::SmallString<256> Database(DatabaseDir);
  if (!DatabaseDir.empty())
    path::append(Database, "compile_commands.json");
  else
    Database = nearestCompileCommands(File); // the one clangd reads
  if (Database.empty())
    return std::nullopt;
  if (path::filename(Database) != "compile_flags.txt")
    return entryIn(Database, File);
  auto Flags = llvm::MemoryBuffer::getFile(Database);
  if (!Flags)
    return std::nullopt;
  // One argument per line, for every file below (clangd's reading of it).
  ProjectCommand Command{path::parent_path(Database).str(), {"clang"}};
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  (*Flags)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines)
    if (!Line.trim().empty())
      Command.Arguments.push_back(Line.trim().str());
  Command.Arguments.push_back(File.str());
  return Command;
}

std::vector<std::string> moduleInputs(const ProjectCommand &Command) {
  std::vector<std::string> Paths;
  for (llvm::StringRef Arg : Command.Arguments) {
    if (Arg.starts_with("@")) {
      const std::string ResponseFile = absoluteIn(Command.Directory, Arg.drop_front());
      Paths.push_back(ResponseFile);
      auto Text = llvm::MemoryBuffer::getFile(ResponseFile);
      if (!Text)
        continue;
      llvm::BumpPtrAllocator Storage;
      llvm::StringSaver Saver(Storage);
      llvm::SmallVector<const char *, 64> Lines;
      llvm::cl::TokenizeGNUCommandLine((*Text)->getBuffer(), Saver, Lines);
      for (llvm::StringRef Line : Lines) // the tokenizer has removed the quotes
        if (std::optional<llvm::StringRef> Module = moduleFileOf(Line))
          Paths.push_back(absoluteIn(Command.Directory, *Module));
    } else if (std::optional<llvm::StringRef> Module = moduleFileOf(Arg)) {
      Paths.push_back(absoluteIn(Command.Directory, *Module));
    } else if (Arg.consume_front("-fprebuilt-module-path=")) {
      llvm::SmallString<256> Primary(absoluteIn(Command.Directory, Arg));
      path::append(Primary, "linpipe.pcm");
      Paths.push_back(std::string(Primary));
    }
  }
  return Paths;
}

std::string fingerprint(const std::vector<std::string> &Paths) {
  std::string Out;
  for (const std::string &P : Paths) {
    fs::file_status Status;
    Out += P + (fs::status(P, Status) ? std::string(" missing\n")
                                     : " " + std::to_string(Status.getLastModificationTime()
                                                                .time_since_epoch()
                                                                .count()) +
                                           "\n");
  }
  return Out;
}

} // namespace linpipe::clangd
