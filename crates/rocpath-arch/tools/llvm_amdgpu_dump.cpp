// Prints, for every AMDGCN processor the linked LLVM knows, the data the architecture table
// is made from: the subtarget feature bits (after implications), and TargetParser's ISA
// version and target-id attributes. Used to fill and review `src/table.rs`; not part of the
// build.
//
//   clang++-22 -std=c++17 -I/usr/lib/llvm-22/include tools/llvm_amdgpu_dump.cpp \
//     -L/usr/lib/llvm-22/lib -lLLVM -Wl,-rpath,/usr/lib/llvm-22/lib -o /tmp/llvm_amdgpu_dump
//   /tmp/llvm_amdgpu_dump
//
// One line per processor:
//   gfx90a v=9.0.10 w32=0 xnack=1 xnack_always=0 sramecc=1 | <feature> <feature> ...

#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/TargetParser.h"
#include "llvm/TargetParser/Triple.h"
#include <memory>

using namespace llvm;

int main() {
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  Triple T("amdgcn-amd-amdhsa");
  std::string Err;
  const Target *Tgt = TargetRegistry::lookupTarget(T, Err);
  if (!Tgt) {
    errs() << Err << "\n";
    return 1;
  }
  SmallVector<StringRef, 96> Names;
  AMDGPU::fillValidArchListAMDGCN(Names);
  for (StringRef N : Names) {
    AMDGPU::GPUKind K = AMDGPU::parseArchAMDGCN(N);
    if (AMDGPU::getArchNameAMDGCN(K) != N)
      continue; // legacy alias such as "tahiti"
    unsigned A = AMDGPU::getArchAttrAMDGCN(K);
    AMDGPU::IsaVersion V = AMDGPU::getIsaVersion(N);
    outs() << N << " v=" << V.Major << "." << V.Minor << "." << V.Stepping
           << " w32=" << !!(A & AMDGPU::FEATURE_WAVE32)
           << " xnack=" << !!(A & AMDGPU::FEATURE_XNACK)
           << " xnack_always=" << !!(A & AMDGPU::FEATURE_XNACK_ALWAYS)
           << " sramecc=" << !!(A & AMDGPU::FEATURE_SRAMECC) << " |";
    std::unique_ptr<MCSubtargetInfo> STI(Tgt->createMCSubtargetInfo(T, N, ""));
    for (const SubtargetFeatureKV &F : STI->getAllProcessorFeatures())
      if (STI->getFeatureBits().test(F.Value))
        outs() << " " << F.Key;
    outs() << "\n";
  }
  return 0;
}
