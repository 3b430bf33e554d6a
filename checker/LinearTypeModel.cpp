//===--- LinearTypeModel.cpp - linpipe clang-tidy checks ------------------===//

#include "LinearTypeModel.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace linpipe::tidy {

bool LinearTypeModel::hasAnnotation(const Decl *D, llvm::StringRef Annotation) const {
  if (!D)
    return false;
  // An annotation on any redeclaration counts (declared in the class, defined outside it).
  for (const Decl *R : D->redecls())
    for (const auto *A : R->specific_attrs<AnnotateAttr>())
      if (A->getAnnotation() == Annotation)
        return true;
  return false;
}

bool LinearTypeModel::recordIsLinear(const CXXRecordDecl *RD, unsigned Depth) {
  if (!RD || Depth > 16)
    return false;
  RD = RD->getDefinition() ? RD->getDefinition() : RD;
  if (hasAnnotation(RD, Names.Linear))
    return true;
  // A specialisation of an annotated class template is linear, also an explicit
  // specialisation that does not repeat the attribute.
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD)) {
    if (hasAnnotation(Spec->getSpecializedTemplate()->getTemplatedDecl(), Names.Linear))
      return true;
    if (const CXXRecordDecl *Pattern = RD->getTemplateInstantiationPattern())
      if (Pattern != RD && hasAnnotation(Pattern, Names.Linear))
        return true;
  }
  // A class derived from a linear class inherits the obligation.
  if (RD->hasDefinition())
    for (const CXXBaseSpecifier &Base : RD->bases())
      if (recordIsLinear(Base.getType()->getAsCXXRecordDecl(), Depth + 1))
        return true;
  return false;
}

const CXXRecordDecl *LinearTypeModel::linearRecord(QualType T) {
  if (T.isNull() || T->isReferenceType() || T->isPointerType() || T->isDependentType())
    return nullptr;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return isLinearClass(RD) ? RD->getCanonicalDecl() : nullptr;
}

bool LinearTypeModel::isLinearClass(const CXXRecordDecl *RD) {
  if (!RD)
    return false;
  RD = RD->getCanonicalDecl();
  auto [It, Inserted] = LinearCache.try_emplace(RD, false);
  if (Inserted) {
    // The recursion below may grow the cache: do not hold on to the iterator.
    bool Linear = recordIsLinear(RD, 0);
    LinearCache[RD] = Linear;
    return Linear;
  }
  return It->second;
}

MethodRole LinearTypeModel::roleOf(const FunctionDecl *FD) {
  if (!FD)
    return {};
  FD = FD->getCanonicalDecl();
  auto [It, Inserted] = RoleCache.try_emplace(FD);
  if (!Inserted)
    return It->second;
  // Members of class template specialisations carry the attributes of their pattern.
  llvm::SmallVector<const FunctionDecl *, 2> Sources{FD};
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    Sources.push_back(Pattern);
  MethodRole Role;
  for (const FunctionDecl *S : Sources) {
    Role.Consume |= hasAnnotation(S, Names.Consume);
    Role.Arrives |= hasAnnotation(S, Names.Arrives);
    Role.Signals |= hasAnnotation(S, Names.Signals);
    Role.NeedsSignal |= hasAnnotation(S, Names.NeedsSignal);
    Role.ProxyFence |= hasAnnotation(S, Names.ProxyFence);
    Role.AsyncProxyRead |= hasAnnotation(S, Names.AsyncProxyRead);
    Role.AsyncProxyWrite |= hasAnnotation(S, Names.AsyncProxyWrite);
    Role.Slot |= hasAnnotation(S, Names.Slot);
  }
  // Arriving on the barrier is a signal.
  Role.Signals |= Role.Arrives;
  It->second = Role;
  return Role;
}

bool LinearTypeModel::arrivesOnArgument(const FunctionDecl *FD) {
  if (!FD)
    return false;
  // The instantiated declaration carries the condition evaluated for its template arguments.
  for (const Decl *R : FD->redecls())
    for (const auto *A : R->specific_attrs<AnnotateAttr>()) {
      if (A->getAnnotation() != Names.ArrivesArg)
        continue;
      if (A->args_size() == 0)
        return true;
      const Expr *Cond = *A->args_begin();
      bool Value = false;
      if (Cond && !Cond->isValueDependent() &&
          Cond->EvaluateAsBooleanCondition(Value, FD->getASTContext()))
        return Value;
      return false;
    }
  return false;
}

// On the function, or on the template it was instantiated from.
bool LinearTypeModel::functionHasAnnotation(const FunctionDecl *FD,
                                            llvm::StringRef Annotation) const {
  if (!FD)
    return false;
  if (hasAnnotation(FD, Annotation))
    return true;
  const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
  return Pattern && hasAnnotation(Pattern, Annotation);
}

bool LinearTypeModel::makesSignalScope(const FunctionDecl *FD) {
  return functionHasAnnotation(FD, Names.SignalScope);
}

bool LinearTypeModel::isHandOff(const FunctionDecl *FD) {
  return functionHasAnnotation(FD, Names.HandOff);
}

bool LinearTypeModel::acquires(const CXXConstructorDecl *Ctor) {
  if (!Ctor)
    return false;
  if (hasAnnotation(Ctor, Names.Acquires))
    return true;
  if (const FunctionDecl *Pattern = Ctor->getTemplateInstantiationPattern())
    return hasAnnotation(Pattern, Names.Acquires);
  return false;
}

template <class Pred>
std::string LinearTypeModel::methodNames(const CXXRecordDecl *RD, Pred Keep) {
  llvm::SmallVector<std::string, 4> Found;
  // The class's own members first, then its bases' (a derived linear class).
  llvm::SmallVector<const CXXRecordDecl *, 4> Classes{RD};
  for (unsigned I = 0; I < Classes.size() && I < 16; ++I) {
    const CXXRecordDecl *C = Classes[I];
    if (!C || !C->hasDefinition())
      continue;
    C = C->getDefinition();
    for (const CXXMethodDecl *M : C->methods()) {
      if (!M->getDeclName().isIdentifier() || !Keep(roleOf(M)))
        continue;
      std::string Name = M->getName().str() + "()";
      if (!llvm::is_contained(Found, Name))
        Found.push_back(std::move(Name));
    }
    for (const CXXBaseSpecifier &Base : C->bases())
      Classes.push_back(Base.getType()->getAsCXXRecordDecl());
  }
  std::string Out;
  for (size_t I = 0; I < Found.size(); ++I) {
    if (I > 0)
      Out += I + 1 == Found.size() ? " or " : ", ";
    Out += Found[I];
  }
  return Out;
}

std::string LinearTypeModel::consumeNames(const CXXRecordDecl *RD) {
  std::string Names = methodNames(RD, [](MethodRole R) { return R.Consume; });
  return Names.empty() ? "a consuming member function" : Names;
}

std::string LinearTypeModel::signalNames(const CXXRecordDecl *RD) {
  return methodNames(RD, [](MethodRole R) { return R.Signals && !R.Consume; });
}

std::string LinearTypeModel::consumeNamesWhere(const CXXRecordDecl *RD, bool Arrives,
                                               bool NeedsSignal) {
  return methodNames(RD, [&](MethodRole R) {
    return R.Consume && (!Arrives || R.Arrives) && (!NeedsSignal || R.NeedsSignal);
  });
}

void LinearTypeModel::reset() {
  LinearCache.clear();
  RoleCache.clear();
}

} // namespace linpipe::tidy
