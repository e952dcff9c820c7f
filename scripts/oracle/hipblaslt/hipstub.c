/* Stand-in libamdhip64.so.6 for running Debian's libhipblaslt.so.1.1 on a CPU.
 * Only what hipblasLtCreate/...AlgoGetHeuristic touch; no kernels are ever launched.
 * Device: ORACLE_ARCH (gcnArchName, e.g. gfx1201) and ORACLE_CUS (multiProcessorCount). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
typedef int hipError_t;
typedef struct { char bytes[16]; } hipUUID;
typedef struct { unsigned bits; } hipDeviceArch_t;
typedef struct hipDeviceProp_tR0600 {
  char name[256]; hipUUID uuid; char luid[8]; unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem; size_t sharedMemPerBlock; int regsPerBlock; int warpSize; size_t memPitch;
  int maxThreadsPerBlock; int maxThreadsDim[3]; int maxGridSize[3]; int clockRate; size_t totalConstMem;
  int major; int minor; size_t textureAlignment; size_t texturePitchAlignment; int deviceOverlap;
  int multiProcessorCount; int kernelExecTimeoutEnabled; int integrated; int canMapHostMemory; int computeMode;
  int maxTexture1D; int maxTexture1DMipmap; int maxTexture1DLinear; int maxTexture2D[2]; int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3]; int maxTexture2DGather[2]; int maxTexture3D[3]; int maxTexture3DAlt[3];
  int maxTextureCubemap; int maxTexture1DLayered[2]; int maxTexture2DLayered[3]; int maxTextureCubemapLayered[2];
  int maxSurface1D; int maxSurface2D[2]; int maxSurface3D[3]; int maxSurface1DLayered[2]; int maxSurface2DLayered[3];
  int maxSurfaceCubemap; int maxSurfaceCubemapLayered[2]; size_t surfaceAlignment; int concurrentKernels;
  int ECCEnabled; int pciBusID; int pciDeviceID; int pciDomainID; int tccDriver; int asyncEngineCount;
  int unifiedAddressing; int memoryClockRate; int memoryBusWidth; int l2CacheSize; int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor; int streamPrioritiesSupported; int globalL1CacheSupported; int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor; int regsPerMultiprocessor; int managedMemory; int isMultiGpuBoard;
  int multiGpuBoardGroupID; int hostNativeAtomicSupported; int singleToDoublePrecisionPerfRatio;
  int pageableMemoryAccess; int concurrentManagedAccess; int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem; int cooperativeLaunch; int cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin; int pageableMemoryAccessUsesHostPageTables; int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor; int accessPolicyMaxWindowSize; size_t reservedSharedMemPerBlock;
  int hostRegisterSupported; int sparseHipArraySupported; int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported; int memoryPoolsSupported; int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions; int gpuDirectRDMAWritesOrdering; unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingHipArraySupported; int ipcEventSupported; int clusterLaunch; int unifiedFunctionPointers;
  int reserved[63]; int hipReserved[32];
  char gcnArchName[256]; size_t maxSharedMemoryPerMultiProcessor; int clockInstructionRate; hipDeviceArch_t arch;
  unsigned int *hdpMemFlushCntl; unsigned int *hdpRegFlushCntl; int cooperativeMultiDeviceUnmatchedFunc;
  int cooperativeMultiDeviceUnmatchedGridDim; int cooperativeMultiDeviceUnmatchedBlockDim;
  int cooperativeMultiDeviceUnmatchedSharedMem; int isLargeBar; int asicRevision;
} hipDeviceProp_tR0600;
_Static_assert(offsetof(hipDeviceProp_tR0600, gcnArchName) == 1160, "R0600 layout");
_Static_assert(sizeof(hipDeviceProp_tR0600) == 1472, "R0600 size");

static int trace(void) { static int t = -1; if (t < 0) t = getenv("ORACLE_HIPSTUB_TRACE") != NULL; return t; }
#define T(...) do { if (trace()) fprintf(stderr, "[hipstub] " __VA_ARGS__); } while (0)
static const char* arch(void) { const char* a = getenv("ORACLE_ARCH"); return a ? a : "gfx1201"; }
static int cus(void) { const char* c = getenv("ORACLE_CUS"); return c ? atoi(c) : 64; }
/* hipDeviceAttributePhysicalMultiProcessorCount: CUs on the die, harvested ones included.
 * Defaults to CU_COUNT (no harvesting); set ORACLE_PHYS_CUS to model a harvested part. */
static int phys_cus(void) { const char* c = getenv("ORACLE_PHYS_CUS"); return c ? atoi(c) : cus(); }

hipError_t hipGetDeviceCount(int* c) { *c = 1; return 0; }
hipError_t hipGetDevice(int* d) { *d = 0; return 0; }
hipError_t hipRuntimeGetVersion(int* v) { *v = 70151000; return 0; }
hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* p, int dev) {
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof p->name, "oracle %s", arch());
  snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s", arch());
  p->multiProcessorCount = cus(); p->warpSize = strncmp(arch(), "gfx9", 4) == 0 ? 64 : 32;
  p->maxThreadsPerBlock = 1024; p->clockRate = 2000000; p->memoryClockRate = 1000000;
  p->l2CacheSize = 4 << 20; p->totalGlobalMem = (size_t)16 << 30; p->sharedMemPerBlock = 65536;
  p->maxSharedMemoryPerMultiProcessor = 65536; p->major = 12; p->minor = 0;
  T("hipGetDevicePropertiesR0600(dev=%d) -> %s, %d CUs\n", dev, p->gcnArchName, p->multiProcessorCount);
  return 0;
}
hipError_t hipDeviceGetAttribute(int* v, int attr, int dev) {
  /* 63 = hipDeviceAttributeMultiprocessorCount, 87 = WarpSize, 10015 = PhysicalMultiProcessorCount
   * (enum order of hip_runtime_api.h) */
  int r = 0;
  if (attr == 63) r = cus();
  else if (attr == 10015) r = phys_cus();
  else if (attr == 87) r = strncmp(arch(), "gfx9", 4) == 0 ? 64 : 32;
  if (attr != 63 && attr != 87 && attr != 10015) fprintf(stderr, "[hipstub] unmodelled hipDeviceGetAttribute(attr=%d) -> 0\n", attr);
  T("hipDeviceGetAttribute(attr=%d) -> %d\n", attr, r);
  *v = r; return 0;
}
hipError_t hipMalloc(void** p, size_t n) { *p = calloc(1, n ? n : 1); T("hipMalloc(%zu)\n", n); return 0; }
hipError_t hipHostMalloc(void** p, size_t n, unsigned f) { *p = calloc(1, n ? n : 1); T("hipHostMalloc(%zu)\n", n); return 0; }
hipError_t hipFree(void* p) { free(p); return 0; }
hipError_t hipMemset(void* p, int v, size_t n) { memset(p, v, n); return 0; }
hipError_t hipMemcpy(void* d, const void* s, size_t n, int k) { memmove(d, s, n); return 0; }
hipError_t hipMemcpyAsync(void* d, const void* s, size_t n, int k, void* st) { memmove(d, s, n); return 0; }
hipError_t hipDeviceSynchronize(void) { return 0; }
hipError_t hipGetLastError(void) { return 0; }
hipError_t hipEventRecord(void* e, void* s) { return 0; }
const char* hipGetErrorString(hipError_t e) { return "hipstub error"; }
const char* hipGetErrorName(hipError_t e) { return "hipstubError"; }
/* Anything that would load or run GPU code fails loudly: selection must not need it. */
hipError_t hipModuleLoad(void** m, const char* f) { fprintf(stderr, "[hipstub] hipModuleLoad(%s) refused\n", f); return 301; }
hipError_t hipModuleLoadData(void** m, const void* d) { fprintf(stderr, "[hipstub] hipModuleLoadData refused\n"); return 200; }
hipError_t hipModuleUnload(void* m) { return 0; }
hipError_t hipModuleGetFunction(void** f, void* m, const char* n) { fprintf(stderr, "[hipstub] hipModuleGetFunction(%s) refused\n", n); return 500; }
hipError_t hipExtModuleLaunchKernel() { fprintf(stderr, "[hipstub] launch refused\n"); return 98; }
