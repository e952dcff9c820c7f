// binref: the same TSV interface as build/oracle, answered by Debian's compiled libhipblaslt.so.1.1
// (7.1.1+dfsg-4) itself, running on this CPU over a stand-in HIP runtime (hipstub.c).
// Public API only: hipblasLtCreate / MatmulDescCreate / MatrixLayoutCreate / PreferenceCreate /
// MatmulAlgoGetHeuristic, then hipblaslt_ext::getSolutionNameFromAlgo for the name.
// Usage: binref LIBDIR PROCESSOR CU_COUNT < problems.tsv > answers.tsv   (see run_binref.sh)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

// ---- public hipBLASLt/hipblas-common/HIP ABI (values from hipblaslt.h, hipblas-common.h, library_types.h)
typedef int hipblasStatus_t;
struct _hipblasLtMatmulAlgo_t { uint8_t data[16] = {0}; size_t max_workspace_bytes = 0; };
typedef _hipblasLtMatmulAlgo_t hipblasLtMatmulAlgo_t;
struct hipblasLtMatmulHeuristicResult_t {
    hipblasLtMatmulAlgo_t algo; size_t workspaceSize = 0; hipblasStatus_t state = 0;
    float wavesCount = 1.0; int reserved[4];
};
static_assert(sizeof(hipblasLtMatmulHeuristicResult_t) == 56, "layout");
extern "C" {
hipblasStatus_t hipblasLtCreate(void** handle);
hipblasStatus_t hipblasLtMatmulDescCreate(void** desc, int computeType, int scaleType);
hipblasStatus_t hipblasLtMatmulDescSetAttribute(void* desc, int attr, const void* buf, size_t n);
hipblasStatus_t hipblasLtMatrixLayoutCreate(void** l, int type, uint64_t rows, uint64_t cols, int64_t ld);
hipblasStatus_t hipblasLtMatrixLayoutSetAttribute(void* l, int attr, const void* buf, size_t n);
hipblasStatus_t hipblasLtMatmulPreferenceCreate(void** p);
hipblasStatus_t hipblasLtMatmulPreferenceSetAttribute(void* p, int attr, const void* buf, size_t n);
hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(void* h, void* desc, void* A, void* B, void* C, void* D,
                                                void* pref, int requested,
                                                hipblasLtMatmulHeuristicResult_t* res, int* returned);
}
namespace hipblaslt_ext {
std::string getSolutionNameFromAlgo(void* handle, hipblasLtMatmulAlgo_t& algo);
}
enum { OP_N = 111, OP_T = 112 };
enum { DESC_TRANSA = 0, DESC_TRANSB = 1, DESC_EPILOGUE = 2, DESC_BIAS_DATA_TYPE = 4 };
enum { LAYOUT_BATCH_COUNT = 0, LAYOUT_STRIDED_BATCH_OFFSET = 1 };
enum { PREF_MAX_WORKSPACE_BYTES = 1 };

static int dtype(const std::string& s) {
    static const struct { const char* n; int v; } t[] = {
        {"f32", 0}, {"f64", 1}, {"f16", 2}, {"i8", 3}, {"i32", 10}, {"bf16", 14}, {"f8", 28}, {"bf8", 29},
        {"f8_fnuz", 1000}, {"bf8_fnuz", 1001}, {"HIP_R_32F", 0}, {"HIP_R_64F", 1}, {"HIP_R_16F", 2},
        {"HIP_R_8I", 3}, {"HIP_R_32I", 10}, {"HIP_R_16BF", 14}, {"HIP_R_8F_E4M3", 28}, {"HIP_R_8F_E5M2", 29},
        {"HIP_R_8F_E4M3_FNUZ", 1000}, {"HIP_R_8F_E5M2_FNUZ", 1001}};
    for (auto& e : t) if (s == e.n) return e.v;
    throw std::runtime_error("unknown data type " + s);
}
static int ctype(const std::string& s) {   // hipblasComputeType_t
    static const struct { const char* n; int v; } t[] = {
        {"f16", 0}, {"16F", 0}, {"f32", 2}, {"32F", 2}, {"xf32", 6}, {"32F_FAST_TF32", 6}, {"f64", 7},
        {"64F", 7}, {"i32", 9}, {"32I", 9}, {"HIPBLAS_COMPUTE_16F", 0}, {"HIPBLAS_COMPUTE_32F", 2},
        {"HIPBLAS_COMPUTE_32F_FAST_TF32", 6}, {"HIPBLAS_COMPUTE_64F", 7}, {"HIPBLAS_COMPUTE_32I", 9}};
    for (auto& e : t) if (s == e.n) return e.v;
    throw std::runtime_error("unknown compute type " + s);
}

int main(int argc, char** argv) {
    if (argc < 4) { std::cerr << "usage: binref LIBDIR PROCESSOR CU_COUNT < problems.tsv\n"; return 2; }
    // LIBDIR/PROCESSOR/CU_COUNT reach the library through HIPBLASLT_TENSILE_LIBPATH / ORACLE_ARCH /
    // ORACLE_CUS (set by run_binref.sh before the process starts).
    void* handle = nullptr;
    if (hipblasLtCreate(&handle) != 0) { std::cerr << "hipblasLtCreate failed\n"; return 1; }
    std::string line; bool header = true; long n = 0, bad = 0;
    auto t0 = std::chrono::steady_clock::now();
    std::ios::sync_with_stdio(false);
    while (std::getline(std::cin, line)) {
        if (header) { header = false; continue; }
        if (line.empty()) continue;
        std::vector<std::string> f; std::stringstream ss(line); std::string x;
        while (std::getline(ss, x, '\t')) f.push_back(x);
        if (f.size() < 25) { std::cerr << "bad line (" << f.size() << " fields): " << line << "\n"; ++bad; continue; }
        const std::string& id = f[0];
        try {
            int opA = (f[1] == "T" || f[1] == "t" || f[1] == "C") ? OP_T : OP_N;
            int opB = (f[2] == "T" || f[2] == "t" || f[2] == "C") ? OP_T : OP_N;
            int64_t m = std::stoll(f[3]), nn = std::stoll(f[4]), k = std::stoll(f[5]);
            int32_t batch = std::stoi(f[6]);
            int ta = dtype(f[7]), tb = dtype(f[8]), tc = dtype(f[9]), td = dtype(f[10]);
            int ct = ctype(f[11]);
            int64_t lda = std::stoll(f[14]), ldb = std::stoll(f[15]), ldc = std::stoll(f[16]), ldd = std::stoll(f[17]);
            int64_t sa = std::stoll(f[18]), sb = std::stoll(f[19]), sc = std::stoll(f[20]), sd = std::stoll(f[21]);
            const std::string& bias = f[22]; const std::string& act = f[23];
            int requested = std::stoi(f[24]);
            int scale = (ct == 7) ? 1 : (ct == 9) ? 10 : 0;
            void* desc = nullptr;
            if (hipblasLtMatmulDescCreate(&desc, ct, scale) != 0) throw std::runtime_error("MatmulDescCreate failed");
            hipblasLtMatmulDescSetAttribute(desc, DESC_TRANSA, &opA, sizeof(int32_t));
            hipblasLtMatmulDescSetAttribute(desc, DESC_TRANSB, &opB, sizeof(int32_t));
            int32_t epi = 1;  // HIPBLASLT_EPILOGUE_DEFAULT
            bool hasBias = !(bias == "-" || bias.empty() || bias == "none");
            if (act == "relu") epi = hasBias ? 6 : 2;
            else if (act == "gelu") epi = hasBias ? 36 : 32;
            else if (act == "none" || act == "-") epi = hasBias ? 4 : 1;
            else throw std::runtime_error("unknown activation " + act);
            hipblasLtMatmulDescSetAttribute(desc, DESC_EPILOGUE, &epi, sizeof(int32_t));
            if (hasBias) { int32_t bt = dtype(bias); hipblasLtMatmulDescSetAttribute(desc, DESC_BIAS_DATA_TYPE, &bt, sizeof(int32_t)); }
            void *A, *B, *C, *D;
            hipblasLtMatrixLayoutCreate(&A, ta, opA == OP_N ? m : k, opA == OP_N ? k : m, lda);
            hipblasLtMatrixLayoutCreate(&B, tb, opB == OP_N ? k : nn, opB == OP_N ? nn : k, ldb);
            hipblasLtMatrixLayoutCreate(&C, tc, m, nn, ldc);
            hipblasLtMatrixLayoutCreate(&D, td, m, nn, ldd);
            void* L[4] = {A, B, C, D}; int64_t S[4] = {sa, sb, sc, sd};
            for (int i = 0; i < 4; ++i) {
                hipblasLtMatrixLayoutSetAttribute(L[i], LAYOUT_BATCH_COUNT, &batch, sizeof(int32_t));
                hipblasLtMatrixLayoutSetAttribute(L[i], LAYOUT_STRIDED_BATCH_OFFSET, &S[i], sizeof(int64_t));
            }
            void* pref = nullptr; hipblasLtMatmulPreferenceCreate(&pref);
            if (const char* w = getenv("ORACLE_WORKSPACE")) {
                uint64_t ws = std::stoull(w);
                hipblasLtMatmulPreferenceSetAttribute(pref, PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
            }
            std::vector<hipblasLtMatmulHeuristicResult_t> res(requested > 0 ? requested : 1);
            int returned = 0;
            int st = hipblasLtMatmulAlgoGetHeuristic(handle, desc, A, B, C, D, pref, requested, res.data(), &returned);
            if (st != 0) std::cerr << id << ": hipblasLtMatmulAlgoGetHeuristic status " << st << "\n";
            if (st != 0 || returned <= 0) std::cout << id << "\t-1\t-1\tnone\n";
            for (int r = 0; st == 0 && r < returned; ++r) {
                int idx; std::memcpy(&idx, res[r].algo.data, sizeof idx);
                std::cout << id << '\t' << r << '\t' << idx << '\t'
                          << hipblaslt_ext::getSolutionNameFromAlgo(handle, res[r].algo) << '\n';
            }
            // descriptors are leaked on purpose: hipblasLt*Destroy are not needed for a one-shot run
            ++n;
        } catch (std::exception& e) { std::cerr << id << ": " << e.what() << "\n"; std::cout << id << "\t-1\t-1\tnone\n"; ++bad; }
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "binref: " << n << " problems, " << bad << " rejected, " << s << " s\n";
}
