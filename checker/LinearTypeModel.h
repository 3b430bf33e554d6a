//===--- LinearTypeModel.h - linpipe clang-tidy checks ----------*- C++ -*-===//
//
// What the linpipe checks know about types and functions, read from
// [[clang::annotate(...)]] attributes only (never from names): which classes are
// linear, which member functions consume, arrive or signal, and which function is
// the documented hand-off escape hatch.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_LINEARTYPEMODEL_H
#define LINPIPE_CHECKER_LINEARTYPEMODEL_H

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <utility>

namespace linpipe::tidy {

/// The annotation strings, configurable through the checks' options.
struct LinearAnnotations {
  std::string Linear = "linpipe::linear";
  std::string Consume = "linpipe::consume";
  std::string Arrives = "linpipe::arrives";
  std::string Signals = "linpipe::signals";
  std::string NeedsSignal = "linpipe::needs_signal";
  std::string HandOff = "linpipe::hand_off";
  std::string Acquires = "linpipe::acquires";
  std::string SignalScope = "linpipe::signal_scope";
  std::string ArrivesArg = "linpipe::arrives_arg";
  std::string Slot = "linpipe::slot";                      // returns slot memory
  std::string ProxyFence = "linpipe::proxy_fence";         // fence.proxy.async
  std::string AsyncProxyRead = "linpipe::async_proxy_read";   // bulk/TMA store from shared
  std::string AsyncProxyWrite = "linpipe::async_proxy_write"; // bulk/TMA load into shared
};

/// Each annotation's check option and field: the one list the checks read, store and key on.
inline constexpr std::pair<const char *, std::string LinearAnnotations::*> AnnotationOptions[] = {
    {"LinearAnnotation", &LinearAnnotations::Linear},
    {"ConsumeAnnotation", &LinearAnnotations::Consume},
    {"ArrivesAnnotation", &LinearAnnotations::Arrives},
    {"SignalsAnnotation", &LinearAnnotations::Signals},
    {"NeedsSignalAnnotation", &LinearAnnotations::NeedsSignal},
    {"HandOffAnnotation", &LinearAnnotations::HandOff},
    {"AcquireAnnotation", &LinearAnnotations::Acquires},
    {"SignalScopeAnnotation", &LinearAnnotations::SignalScope},
    {"ArrivesArgAnnotation", &LinearAnnotations::ArrivesArg},
    {"SlotAnnotation", &LinearAnnotations::Slot},
    {"ProxyFenceAnnotation", &LinearAnnotations::ProxyFence},
    {"AsyncProxyReadAnnotation", &LinearAnnotations::AsyncProxyRead},
    {"AsyncProxyWriteAnnotation", &LinearAnnotations::AsyncProxyWrite},
};

/// What calling a member function does to the linear object it is called on.
struct MethodRole {
  bool Consume = false;     // ends the obligation (release())
  bool Arrives = false;     // arrives on the stage's barrier (arrive(), release())
  bool Signals = false;     // a signalling use (mbar(), arrive())
  bool NeedsSignal = false; // a consume that needs an earlier signal (release_without_signal())
  bool MayConsume = false;  // ends the obligation on some paths only (a helper's summary)
  // Shared memory through the async proxy (ProxyFenceAnalysis.h).
  bool ProxyFence = false;
  bool AsyncProxyRead = false;
  bool AsyncProxyWrite = false;
  bool Slot = false;
};

class LinearTypeModel {
public:
  explicit LinearTypeModel(LinearAnnotations Names) : Names(std::move(Names)) {}

  const LinearAnnotations &annotations() const { return Names; }

  /// The linear class of \p T (a class type, not a reference or pointer), or null.
  const clang::CXXRecordDecl *linearRecord(clang::QualType T);
  bool isLinear(clang::QualType T) { return linearRecord(T) != nullptr; }
  bool isLinearClass(const clang::CXXRecordDecl *RD);

  MethodRole roleOf(const clang::FunctionDecl *FD);
  bool isHandOff(const clang::FunctionDecl *FD);
  bool isSlotAccessor(const clang::FunctionDecl *FD) { return FD && roleOf(FD).Slot; }
  /// A function returning a scope that ends its claim without arriving (consume_explicit()):
  /// some path must signal through the scope before it ends.
  bool makesSignalScope(const clang::FunctionDecl *FD);
  /// A function that takes a stage and arrives on its barrier when it releases it (a lag's
  /// push(), an epilogue's store() whose release policy arrives): an arrival before the call
  /// is a second one. `[[clang::annotate("linpipe::arrives_arg", Cond)]]`, Cond a constant.
  bool arrivesOnArgument(const clang::FunctionDecl *FD);
  /// A constructor that creates an obligation even with no arguments (a holder that must
  /// be flushed); other default constructors make an empty value.
  bool acquires(const clang::CXXConstructorDecl *Ctor);

  /// "release() or release_without_signal()": the consuming members of \p RD, for notes.
  std::string consumeNames(const clang::CXXRecordDecl *RD);
  /// Signalling members that do not consume ("mbar() or arrive()").
  std::string signalNames(const clang::CXXRecordDecl *RD);
  /// Consuming members that arrive ("release()") or that need a signal
  /// ("release_without_signal()").
  std::string consumeNamesWhere(const clang::CXXRecordDecl *RD, bool Arrives, bool NeedsSignal);

  /// Forget cached declarations (they belong to one translation unit).
  void reset();

private:
  bool hasAnnotation(const clang::Decl *D, llvm::StringRef Annotation) const;
  bool functionHasAnnotation(const clang::FunctionDecl *FD, llvm::StringRef Annotation) const;
  bool recordIsLinear(const clang::CXXRecordDecl *RD, unsigned Depth);
  template <class Pred>
  std::string methodNames(const clang::CXXRecordDecl *RD, Pred Keep);

  LinearAnnotations Names;
  llvm::DenseMap<const clang::CXXRecordDecl *, bool> LinearCache;
  llvm::DenseMap<const clang::FunctionDecl *, MethodRole> RoleCache;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_LINEARTYPEMODEL_H
