// Reference oracle: which Tensile solution does rocBLAS 6.4.4 pick for a GEMM?
//
// Drives the real Tensile host-library selection code (ROCm/Tensile release/rocm-rel-6.4,
// compiled for the host CPU without HIP) over rocBLAS's catalog files, building the
// ContractionProblem exactly as rocBLAS 6.4.4's ConstructTensileProblem does
// (library/src/tensile_host.cpp:337-544, copied below), and searching exactly as
// runContractionProblem does (tensile_host.cpp:1121-1184: findBestSolution, then the
// XF32 -> FP32 fallbackTensileProblem, then findBestSolution again).
//
// Usage: oracle LIBDIR PROCESSOR CU_COUNT [IS_APU] < problems.tsv > answers.tsv
// See ../README.md for the input/output format.

#include <Tensile/AMDGPU.hpp>
#include <Tensile/Contractions.hpp>
#include <Tensile/MasterSolutionLibrary.hpp>
#include <Tensile/PlaceholderLibrary.hpp>
#include <Tensile/Tensile.hpp>
#include <Tensile/TensorDescriptor.hpp>
#include <Tensile/Utils.hpp>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

extern char** environ;

// ===========================================================================================
// Minimal stand-ins for the rocBLAS types / handle fields that ConstructTensileProblem reads.
// Values and semantics are those of rocBLAS 6.4.4 (file:line given for each).
// ===========================================================================================

// library/include/internal/rocblas-types.h
typedef enum rocblas_operation_
{
    rocblas_operation_none                = 111,
    rocblas_operation_transpose           = 112,
    rocblas_operation_conjugate_transpose = 113
} rocblas_operation;

typedef enum rocblas_atomics_mode_
{
    rocblas_atomics_not_allowed = 0,
    rocblas_atomics_allowed     = 1,
} rocblas_atomics_mode;

typedef enum rocblas_performance_metric_
{
    rocblas_default_performance_metric      = 0,
    rocblas_device_efficiency_performance_metric = 1,
    rocblas_cu_efficiency_performance_metric     = 2
} rocblas_performance_metric;

typedef enum rocblas_math_mode_
{
    rocblas_default_math     = 0,
    rocblas_xf32_xdl_math_op = 1,
} rocblas_math_mode;

// rocblas-types.h:288-306
typedef enum rocblas_gemm_flags_
{
    rocblas_gemm_flags_none                 = 0x0,
    rocblas_gemm_flags_use_cu_efficiency    = 0x2,
    rocblas_gemm_flags_fp16_alt_impl        = 0x4,
    rocblas_gemm_flags_check_solution_index = 0x8,
    rocblas_gemm_flags_fp16_alt_impl_rnz    = 0x10,
    rocblas_gemm_flags_stochastic_rounding  = 0x20
} rocblas_gemm_flags;

typedef int32_t rocblas_int;
typedef int64_t rocblas_stride;

// rocBLAS is built with ROCM_USE_FLOAT16 (library/CMakeLists.txt:66) -> rocblas_half is _Float16
// (rocblas-types.h:92).
typedef _Float16 rocblas_half;

// Only ever an input type here (never Tc), so only size/layout matters.
struct rocblas_bfloat16
{
    uint16_t data;
};

// Same semantics as rocblas_complex_num (rocblas-complex-types.h): explicit bool is x||y
// (line 214), == compares both parts, construction from a real gives imag 0.
template <typename T>
struct rocblas_complex_num
{
    T x, y;
    constexpr rocblas_complex_num() = default;
    constexpr rocblas_complex_num(T r, T i = 0) : x(r), y(i) {}
    constexpr explicit operator bool() const { return x || y; }
    constexpr bool operator==(const rocblas_complex_num& r) const { return x == r.x && y == r.y; }
    constexpr bool operator!=(const rocblas_complex_num& r) const { return !(*this == r); }
};
using rocblas_float_complex  = rocblas_complex_num<float>;
using rocblas_double_complex = rocblas_complex_num<double>;

template <typename T>
constexpr bool rocblas_is_complex = false;
template <>
constexpr bool rocblas_is_complex<rocblas_float_complex> = true;
template <>
constexpr bool rocblas_is_complex<rocblas_double_complex> = true;

// library/src/include/utility.hpp:866-870
template <typename T>
constexpr double value_category(const T& beta)
{
    return beta == T(0) ? 0.0 : beta == T(1) ? 1.0 : beta == T(-1) ? -1.0 : 2.0;
}

// The handle fields ConstructTensileProblem reads, with a freshly created handle's values.
struct oracle_handle
{
    // handle.hpp:344  "default atomics mode allows atomic operations"
    //   (handle.cpp:188-193 would override from ROCBLAS_DEFAULT_ATOMICS_MODE; env is cleared)
    rocblas_atomics_mode atomics_mode = rocblas_atomics_allowed;
    // handle.hpp:347
    rocblas_performance_metric performance_metric = rocblas_default_performance_metric;
    // handle.hpp:353; rocblas_set_math_mode (rocblas_auxiliary.cpp:152-190) only accepts
    // xf32 on gfx940/941/942 (rocblas_auxiliary.cpp:905-915), otherwise silently keeps default.
    rocblas_math_mode math_mode = rocblas_default_math;
    // handle.hpp:486 DEFAULT_DEVICE_MEMORY_SIZE = 32 MiB (128 MiB on gfx94x, handle.hpp:320-330),
    // allocated by the constructor (handle.cpp:195-219); nothing in use when a gemm reaches Tensile.
    size_t device_memory_size       = 32 * 1024 * 1024;
    size_t device_memory_in_use     = 0;
    bool   device_memory_size_query = false;

    bool is_device_memory_size_query() const
    {
        return device_memory_size_query;
    }
    // handle.hpp:398-401
    size_t get_available_workspace()
    {
        return (device_memory_size - device_memory_in_use);
    }
};
using rocblas_handle = oracle_handle*;

typedef enum rocblas_status_
{
    rocblas_status_success = 0,
} rocblas_status;

// handle.cpp (rocblas_get_performance_metric)
rocblas_status rocblas_get_performance_metric(rocblas_handle handle, rocblas_performance_metric* metric)
{
    *metric = handle->performance_metric;
    return rocblas_status_success;
}

// library/src/include/tensile_host.hpp:65-185 (data members + gemm_ex constructor)
template <typename TiA,
          typename To  = TiA,
          typename Tc  = To,
          typename TiB = TiA,
          typename TcA = TiA,
          typename TcB = TiA>
struct RocblasContractionProblem
{
    rocblas_handle     handle;
    rocblas_gemm_flags flags;
    rocblas_operation  trans_a;
    rocblas_operation  trans_b;

    size_t m;
    size_t n;
    size_t k;

    const Tc* alpha;

    const TiA*        A;
    const TiA* const* batch_A;
    size_t            row_stride_a;
    size_t            col_stride_a;
    size_t            batch_stride_a;
    size_t            buffer_offset_a;

    const TiB*        B;
    const TiB* const* batch_B;
    size_t            row_stride_b;
    size_t            col_stride_b;
    size_t            batch_stride_b;
    size_t            buffer_offset_b;

    const Tc* beta;

    const To*        C;
    const To* const* batch_C;
    size_t           row_stride_c;
    size_t           col_stride_c;
    size_t           batch_stride_c;
    size_t           buffer_offset_c;

    To*        D;
    To* const* batch_D;
    size_t     row_stride_d;
    size_t     col_stride_d;
    size_t     batch_stride_d;
    size_t     buffer_offset_d;

    size_t batch_count;
    bool   strided_batch;

    RocblasContractionProblem(rocblas_handle     handle,
                              rocblas_operation  trans_a,
                              rocblas_operation  trans_b,
                              rocblas_int        m,
                              rocblas_int        n,
                              rocblas_int        k,
                              const Tc*          alpha,
                              const TiA*         A,
                              const TiA* const*  batch_A,
                              rocblas_int        ld_a,
                              rocblas_stride     batch_stride_a,
                              rocblas_stride     offset_a,
                              const TiB*         B,
                              const TiB* const*  batch_B,
                              rocblas_int        ld_b,
                              rocblas_stride     batch_stride_b,
                              rocblas_stride     offset_b,
                              const Tc*          beta,
                              const To*          C,
                              const To* const*   batch_C,
                              rocblas_int        ld_c,
                              rocblas_stride     batch_stride_c,
                              rocblas_stride     offset_c,
                              To*                D,
                              To* const*         batch_D,
                              rocblas_int        ld_d,
                              rocblas_stride     batch_stride_d,
                              rocblas_stride     offset_d,
                              rocblas_int        batch_count,
                              bool               strided_batch,
                              rocblas_gemm_flags flags)
        : handle(handle)
        , flags(flags)
        , trans_a(trans_a)
        , trans_b(trans_b)
        , m(m)
        , n(n)
        , k(k)
        , alpha(alpha)
        , A(A)
        , batch_A(batch_A)
        , row_stride_a(1)
        , col_stride_a(ld_a)
        , batch_stride_a(batch_stride_a)
        , buffer_offset_a(offset_a)
        , B(B)
        , batch_B(batch_B)
        , row_stride_b(1)
        , col_stride_b(ld_b)
        , batch_stride_b(batch_stride_b)
        , buffer_offset_b(offset_b)
        , beta(beta)
        , C(C)
        , batch_C(batch_C)
        , row_stride_c(1)
        , col_stride_c(ld_c)
        , batch_stride_c(batch_stride_c)
        , buffer_offset_c(offset_c)
        , D(D)
        , batch_D(batch_D)
        , row_stride_d(1)
        , col_stride_d(ld_d)
        , batch_stride_d(batch_stride_d)
        , buffer_offset_d(offset_d)
        , batch_count(batch_count)
        , strided_batch(strided_batch)
    {
    }
};

// ===========================================================================================
// rocBLAS 6.4.4's own code that builds the Tensile problem: tensile_host.cpp lines 146-229 (type
// maps), 232-245 (metric map), 321-333 (AlphaBeta), 338-544 (ConstructTensileProblem) and
// 1091-1103 (fallbackTensileProblem), extracted unchanged at build time by extract.py.
// ===========================================================================================
namespace
{
    // What the f8 parts and the XF32 warning of those lines name (no f8 type is instantiated).
    struct rocblas_f8
    {
    };
    struct rocblas_bf8
    {
    };
    struct rocblas_internal_ostream
    {
        template <typename T>
        rocblas_internal_ostream& operator<<(T const&)
        {
            return *this;
        }
    };
    template <typename T>
    void print_once(T const&)
    {
    }
} // namespace

#include "rocblas_tensile_host.inc"

// ===========================================================================================
// Oracle driver
// ===========================================================================================
namespace
{
    using Library = Tensile::MasterSolutionLibrary<Tensile::ContractionProblem>;

    std::shared_ptr<Library>         g_library;
    std::shared_ptr<Tensile::AMDGPU> g_hardware;
    oracle_handle                    g_handle;
    bool                             g_ydim16bit = false; // handle.hpp:257-260: archMajor == 12

    enum class Api
    {
        gemm,
        gemm_strided_batched,
        gemm_batched,
        gemm_ex,
        gemm_strided_batched_ex,
        gemm_batched_ex
    };

    struct Line
    {
        std::string       id;
        Api               api;
        bool              is_ex;
        std::string       a_type, b_type, c_type, d_type, compute_type;
        rocblas_operation trans_a, trans_b;
        int64_t           m, n, k, lda, ldb, ldc, ldd;
        int64_t           stride_a, stride_b, stride_c, stride_d, batch_count;
        double            alpha, beta;
        uint32_t          flags;
        int               math_mode;
    };

    struct Answer
    {
        int         index = -1;
        std::string name  = "-";
        std::string tag   = "none";
    };

    [[noreturn]] void die(std::string const& msg)
    {
        std::cerr << "oracle: " << msg << std::endl;
        std::exit(2);
    }

    bool parse_i64(std::string const& s, int64_t& out)
    {
        if(s.empty())
            return false;
        errno   = 0;
        char* e = nullptr;
        long long v = std::strtoll(s.c_str(), &e, 10);
        if(errno || *e)
            return false;
        out = v;
        return true;
    }

    bool parse_f64(std::string const& s, double& out)
    {
        if(s.empty())
            return false;
        errno    = 0;
        char*  e = nullptr;
        double v = std::strtod(s.c_str(), &e);
        if(errno || *e)
            return false;
        out = v;
        return true;
    }

    bool parse_trans(std::string const& s, rocblas_operation& t)
    {
        if(s == "N" || s == "n")
            t = rocblas_operation_none;
        else if(s == "T" || s == "t")
            t = rocblas_operation_transpose;
        else if(s == "C" || s == "c")
            t = rocblas_operation_conjugate_transpose;
        else
            return false;
        return true;
    }

    bool parse_api(std::string const& s, Api& a, bool& ex)
    {
        static const std::pair<const char*, Api> apis[] = {
            {"gemm", Api::gemm},
            {"gemm_strided_batched", Api::gemm_strided_batched},
            {"gemm_batched", Api::gemm_batched},
            {"gemm_ex", Api::gemm_ex},
            {"gemm_strided_batched_ex", Api::gemm_strided_batched_ex},
            {"gemm_batched_ex", Api::gemm_batched_ex},
        };
        for(auto& p : apis)
            if(s == p.first)
            {
                a  = p.second;
                ex = (a == Api::gemm_ex || a == Api::gemm_strided_batched_ex
                      || a == Api::gemm_batched_ex);
                return true;
            }
        return false;
    }

    // Decimal input -> compute-type value. Complex alpha/beta are real + 0i.
    template <typename Tc>
    bool to_tc(double v, Tc& out, std::string& err)
    {
        if constexpr(std::is_same<Tc, int32_t>{})
        {
            if(v != std::floor(v) || v < INT32_MIN || v > INT32_MAX)
            {
                err = "alpha/beta must be an int32 value for i32 compute";
                return false;
            }
            out = static_cast<int32_t>(v);
        }
        else if constexpr(rocblas_is_complex<Tc>)
            out = Tc(static_cast<decltype(Tc().x)>(v), 0);
        else
            out = static_cast<Tc>(v);
        return true;
    }

    // Runs the oracle for one problem with rocBLAS types TiA(=TiB), To, Tc.
    template <typename Ti, typename To, typename Tc>
    Answer solve(Line const& L)
    {
        Answer ans;

        Tc alpha_v, beta_v;
        std::string err;
        if(!to_tc<Tc>(L.alpha, alpha_v, err) || !to_tc<Tc>(L.beta, beta_v, err))
        {
            std::cerr << "oracle: line id " << L.id << ": " << err << std::endl;
            ans.tag = "error";
            return ans;
        }

        rocblas_operation trans_a = L.trans_a, trans_b = L.trans_b;
        int64_t m = L.m, n = L.n, k = L.k;
        int64_t lda = L.lda, ldb = L.ldb, ldc = L.ldc;
        int64_t ldd = L.is_ex ? L.ldd : L.ldc; // non-ex: D is C
        int64_t batch_count
            = (L.api == Api::gemm || L.api == Api::gemm_ex) ? 1 : L.batch_count;

        // ---- argument checks, in rocBLAS order -------------------------------------------------
        // rocblas_gemm_arg_check (blas3/rocblas_gemm.hpp:68-139) /
        // rocblas_gemm_ex_arg_check (blas_ex/rocblas_gemm_ex.hpp:102-233)
        if(m < 0 || n < 0 || k < 0 || batch_count < 0)
        {
            ans.tag = "invalid";
            return ans;
        }
        int64_t num_rows_a = trans_a == rocblas_operation_none ? m : k;
        int64_t num_rows_b = trans_b == rocblas_operation_none ? k : n;
        if(num_rows_a > lda || num_rows_b > ldb || m > ldc || (L.is_ex && m > ldd))
        {
            ans.tag = "invalid";
            return ans;
        }
        if(!m || !n || !batch_count)
        {
            ans.tag = "quick_return";
            return ans;
        }
        if(!L.is_ex)
        {
            // rocblas_gemm.hpp:116-128 (host pointer mode)
            if(beta_v == Tc(1))
            {
                if(!k)
                {
                    ans.tag = "quick_return";
                    return ans;
                }
                if(!alpha_v)
                {
                    ans.tag = "quick_return";
                    return ans;
                }
            }
        }

        // ---- strides / batching as the entry points set them ---------------------------------
        int64_t stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;
        bool    batched  = false; // pointer-array API
        switch(L.api)
        {
        case Api::gemm: // rocblas_gemm_imp.hpp:192-212: strides 0, batch 1
            break;
        case Api::gemm_batched: // rocblas_gemm_batched_imp.hpp:197-217: strides 0
            batched = true;
            break;
        case Api::gemm_strided_batched: // rocblas_gemm_strided_batched_imp.hpp:226-246
            stride_a = L.stride_a;
            stride_b = L.stride_b;
            stride_c = L.stride_c;
            stride_d = L.stride_c; // D is C
            break;
        case Api::gemm_ex: // rocblas_gemm_ex_imp.hpp:257-258: strides {1}, batch 1
            stride_a = stride_b = stride_c = stride_d = 1;
            break;
        case Api::gemm_strided_batched_ex:
            stride_a = L.stride_a;
            stride_b = L.stride_b;
            stride_c = L.stride_c;
            stride_d = L.stride_d;
            break;
        case Api::gemm_batched_ex: // rocblas_gemm_batched_ex_imp.hpp:259-262 (and
                                   // rocblas_gemm_ex_kernels.cpp rocblas_gemm_ex_template)
            batched  = true;
            stride_a = lda * (trans_a == rocblas_operation_none ? k : m);
            stride_b = ldb * (trans_b == rocblas_operation_none ? n : k);
            stride_c = ldc * n;
            stride_d = ldd * n;
            break;
        }

        // C and D buffers. Non-ex: D = C. _ex: the same buffer iff ldc==ldd and stride_c==stride_d.
        // Addresses are fake; only their equality matters (ConstructTensileProblem: prob.C == prob.D).
        static To bufC[1], bufD[1];
        static Ti bufA[1], bufB[1];
        To*       Cp = bufC;
        To*       Dp = (!L.is_ex || (ldc == ldd && stride_c == stride_d)) ? bufC : bufD;

        // rocblas_call_tensile (blas3/Tensile/gemm_tensile.hpp): conjugate -> transpose for reals
        if constexpr(!rocblas_is_complex<Ti>)
        {
            if(trans_a == rocblas_operation_conjugate_transpose)
                trans_a = rocblas_operation_transpose;
            if(trans_b == rocblas_operation_conjugate_transpose)
                trans_b = rocblas_operation_transpose;
        }

        // handle.hpp:262-272 getBatchGridDim: only gfx12 splits batches (first chunk reported)
        int64_t batches = batch_count;
        if(g_ydim16bit)
            batches = std::min<int64_t>(batch_count, int64_t(1) << 16);

        rocblas_gemm_flags flags
            = L.is_ex ? rocblas_gemm_flags(L.flags) : rocblas_gemm_flags_none;

        const Tc* alpha = &alpha_v;
        const Tc* beta  = &beta_v;

        std::unique_ptr<RocblasContractionProblem<Ti, To, Tc>> prob;
        if(batched)
        {
            // gemm_tensile.hpp:106-110: pointer arrays go to batch_*, A/B/C/D are nullptr
            static const Ti* arrA[1] = {bufA};
            static const Ti* arrB[1] = {bufB};
            static const To* arrC[1] = {bufC};
            static To*       arrD[1] = {bufD};
            prob.reset(new RocblasContractionProblem<Ti, To, Tc>{
                &g_handle, trans_a, trans_b,  rocblas_int(m), rocblas_int(n), rocblas_int(k),
                alpha,     nullptr, arrA,     rocblas_int(lda), stride_a,     0,
                nullptr,   arrB,    rocblas_int(ldb), stride_b,     0,            beta,
                nullptr,   arrC,    rocblas_int(ldc), stride_c,     0,            nullptr,
                arrD,      rocblas_int(ldd), stride_d, 0,           rocblas_int(batches), false,
                flags});
        }
        else
        {
            // gemm_tensile.hpp:188-220: offsets pre-applied (all 0 from the public APIs)
            prob.reset(new RocblasContractionProblem<Ti, To, Tc>{
                &g_handle, trans_a, trans_b,  rocblas_int(m), rocblas_int(n), rocblas_int(k),
                alpha,     bufA,    nullptr,  rocblas_int(lda), stride_a,     0,
                bufB,      nullptr, rocblas_int(ldb), stride_b,     0,            beta,
                Cp,        nullptr, rocblas_int(ldc), stride_c,     0,            Dp,
                nullptr,   rocblas_int(ldd), stride_d, 0,           rocblas_int(batches), true,
                flags});
        }

        // ---- runContractionProblem (tensile_host.cpp:1121-1184) -------------------------------
        auto tensile_prob = ConstructTensileProblem(*prob);
        std::shared_ptr<Tensile::ContractionSolution> solution
            = g_library->findBestSolution(tensile_prob, *g_hardware, nullptr);
        bool fell_back = false;
        if(!solution && fallbackTensileProblem(tensile_prob))
        {
            solution  = g_library->findBestSolution(tensile_prob, *g_hardware, nullptr);
            fell_back = true;
        }

        if(solution)
        {
            ans.index = solution->index;
            ans.name  = solution->name();
            ans.tag   = fell_back ? "xf32_to_f32" : "-";
        }
        return ans;
    }

    // Type combinations rocBLAS 6.4.4 instantiates (rocblas_gemm_ex_template,
    // blas_ex/rocblas_gemm_ex_kernels.cpp; INST_GEMM_C_API in blas3/rocblas_gemm_imp.hpp).
    Answer dispatch(Line const& L, bool& ok)
    {
        ok           = true;
        auto& a      = L.a_type;
        auto& b      = L.b_type;
        auto& c      = L.c_type;
        auto& d      = L.d_type;
        auto& t      = L.compute_type;
        bool  same5  = a == b && b == c && c == d && d == t;
        if(same5)
        {
            if(a == "f32")
                return solve<float, float, float>(L);
            if(a == "f64")
                return solve<double, double, double>(L);
            if(a == "f16")
                return solve<rocblas_half, rocblas_half, rocblas_half>(L);
            if(a == "c32")
                return solve<rocblas_float_complex, rocblas_float_complex, rocblas_float_complex>(L);
            if(a == "c64")
                return solve<rocblas_double_complex,
                             rocblas_double_complex,
                             rocblas_double_complex>(L);
        }
        if(L.is_ex && a == b)
        {
            if(a == "f16" && c == "f16" && d == "f16" && t == "f32")
                return solve<rocblas_half, rocblas_half, float>(L);
            if(a == "f16" && c == "f32" && d == "f32" && t == "f32")
                return solve<rocblas_half, float, float>(L);
            if(a == "bf16" && c == "bf16" && d == "bf16" && t == "f32")
                return solve<rocblas_bfloat16, rocblas_bfloat16, float>(L);
            if(a == "bf16" && c == "f32" && d == "f32" && t == "f32")
                return solve<rocblas_bfloat16, float, float>(L);
            if(a == "i8" && c == "i32" && d == "i32" && t == "i32")
                return solve<int8_t, int32_t, int32_t>(L);
        }
        ok = false;
        return Answer{};
    }

    std::vector<std::string> split_tabs(std::string const& s)
    {
        std::vector<std::string> out;
        size_t                   start = 0;
        while(true)
        {
            size_t p = s.find('\t', start);
            if(p == std::string::npos)
            {
                out.push_back(s.substr(start));
                break;
            }
            out.push_back(s.substr(start, p - start));
            start = p + 1;
        }
        return out;
    }

    bool fits_int32(int64_t v)
    {
        return v >= INT32_MIN && v <= INT32_MAX;
    }

    bool parse_line(std::string const& raw, Line& L, std::string& err)
    {
        auto f = split_tabs(raw);
        if(f.size() != 25)
        {
            err = "expected 25 tab-separated columns, got " + std::to_string(f.size());
            if(!f.empty())
                L.id = f[0];
            return false;
        }
        L.id = f[0];
        if(!parse_api(f[1], L.api, L.is_ex))
            return err = "unknown api '" + f[1] + "'", false;
        L.a_type       = f[2];
        L.b_type       = f[3];
        L.c_type       = f[4];
        L.d_type       = f[5];
        L.compute_type = f[6];
        if(!parse_trans(f[7], L.trans_a) || !parse_trans(f[8], L.trans_b))
            return err = "trans must be N, T or C", false;
        int64_t* ints[] = {&L.m, &L.n, &L.k, &L.lda, &L.ldb, &L.ldc, &L.ldd,
                           &L.stride_a, &L.stride_b, &L.stride_c, &L.stride_d, &L.batch_count};
        for(int i = 0; i < 12; i++)
            if(!parse_i64(f[9 + i], *ints[i]))
                return err = "column " + std::to_string(10 + i) + " is not an integer: '"
                             + f[9 + i] + "'",
                       false;
        for(int64_t v : {L.m, L.n, L.k, L.lda, L.ldb, L.ldc, L.ldd, L.batch_count})
            if(!fits_int32(v))
                return err = "m/n/k/ld/batch_count must fit rocblas_int (int32)", false;
        if(!parse_f64(f[21], L.alpha) || !parse_f64(f[22], L.beta))
            return err = "alpha/beta must be decimal numbers", false;
        int64_t fl, mm;
        if(!parse_i64(f[23], fl) || fl < 0 || fl > UINT32_MAX)
            return err = "flags must be a non-negative integer", false;
        if(!parse_i64(f[24], mm) || (mm != 0 && mm != 1))
            return err = "math_mode must be 0 or 1", false;
        L.flags     = uint32_t(fl);
        L.math_mode = int(mm);
        return true;
    }

    bool readable(std::string const& p)
    {
        return access(p.c_str(), R_OK) == 0;
    }

    // Environment a plain process has: no TENSILE_* (Debug.cpp, AMDGPU.hpp stream-K knobs) and
    // no ROCBLAS_* (ROCBLAS_INTERNAL_*, ROCBLAS_DEFAULT_ATOMICS_MODE, ...) variables.
    void clear_env()
    {
        std::vector<std::string> names;
        for(char** e = environ; *e; ++e)
        {
            std::string kv(*e);
            std::string name = kv.substr(0, kv.find('='));
            if(name.rfind("TENSILE_", 0) == 0 || name.rfind("ROCBLAS_", 0) == 0)
                names.push_back(name);
        }
        for(auto& n : names)
        {
            std::cerr << "oracle: note: ignoring environment variable " << n << std::endl;
            unsetenv(n.c_str());
        }
    }
} // namespace

int main(int argc, char** argv)
{
    if(argc < 4 || argc > 5)
        die("usage: oracle LIBDIR PROCESSOR CU_COUNT [IS_APU] < problems.tsv > answers.tsv");

    bool        force_xf32 = std::getenv("ORACLE_FORCE_XF32") != nullptr;
    const char* dbg        = std::getenv("ORACLE_TENSILE_DB");
    std::string dbg_value  = dbg ? dbg : "";
    clear_env();
    // Switches under test (agree.sh --env NAME=VALUE): `;`-separated pairs set again after the
    // clearing, before Tensile's Debug singleton first reads them.
    if(const char* sw = std::getenv("ORACLE_SWITCHES"))
    {
        std::stringstream ss(sw);
        std::string       kv;
        while(std::getline(ss, kv, ';'))
        {
            auto eq = kv.find('=');
            if(eq != std::string::npos)
                setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
        }
    }
    // Debugging aid only: Tensile's own trace (Debug.cpp, TENSILE_DB bits), printed to stdout.
    if(!dbg_value.empty())
        setenv("TENSILE_DB", dbg_value.c_str(), 1);

    std::string libdir    = argv[1];
    std::string processor = argv[2];
    int64_t     cus = 0, apu = 0;
    if(!parse_i64(argv[3], cus) || cus <= 0 || cus > INT32_MAX)
        die("CU_COUNT must be a positive integer");
    if(argc == 5 && (!parse_i64(argv[4], apu) || (apu != 0 && apu != 1)))
        die("IS_APU must be 0 or 1");

    auto proc = Tensile::AMDGPU().toProcessorId(processor);
    if(static_cast<int>(proc) == 0 || Tensile::AMDGPU::toString(proc) != processor)
        die("unknown PROCESSOR '" + processor + "' (not in Tensile::AMDGPU::Processor)");
    g_ydim16bit = processor.rfind("gfx12", 0) == 0;
    if(processor.find("gfx94") != std::string::npos)
        g_handle.device_memory_size = 128 * 1024 * 1024; // handle.hpp:320-330
    // Non-default experiments only: what rocBLAS would see with ROCBLAS_DEVICE_MEMORY_SIZE /
    // rocblas_set_device_memory_size(N) (N rounded up to 64 bytes, handle.cpp:565), or with
    // rocblas_set_atomics_mode(rocblas_atomics_not_allowed).
    if(const char* ws = std::getenv("ORACLE_WORKSPACE_BYTES"))
    {
        int64_t v = 0;
        if(!parse_i64(ws, v) || v < 0)
            die("ORACLE_WORKSPACE_BYTES must be a non-negative integer");
        g_handle.device_memory_size = ((size_t(v) + 63) / 64) * 64;
    }
    if(const char* am = std::getenv("ORACLE_ATOMICS_NOT_ALLOWED"))
        if(std::string(am) == "1")
            g_handle.atomics_mode = rocblas_atomics_not_allowed;

    // tensile_host.cpp:795-847: per-arch subfolder, then lazy / arch / generic master file.
    std::string path = libdir;
    if(readable(path + "/" + processor))
        path += "/" + processor;
    bool        lazy   = true;
    std::string master = path + "/TensileLibrary_lazy_" + processor + ".dat";
    if(!readable(master))
    {
        lazy   = false;
        master = path + "/TensileLibrary_" + processor + ".dat";
        if(!readable(master))
            master = path + "/TensileLibrary.dat";
        if(!readable(master))
            die("cannot read " + master);
    }

    // tensile_host.cpp:955-963 (lazy: preload nothing) / 876-884 (non-lazy: preload All).
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Tensile::LazyLoadingInit> preload;
    if(!lazy)
        preload.push_back(Tensile::LazyLoadingInit::All);
    auto lib = Tensile::LoadLibraryFilePreload<Tensile::ContractionProblem>(master, preload);
    g_library = std::dynamic_pointer_cast<Library>(lib);
    if(!g_library)
        die("could not load " + master + " as a MasterSolutionLibrary");
    auto t1 = std::chrono::steady_clock::now();

    // Hardware as Tensile::hip::GetDevice(hipDeviceProp_t) builds it (HipHardware.cpp:35-42):
    // processor from gcnArchName, CU count = prop.multiProcessorCount, isAPU =
    // prop.directManagedMemAccessFromHost. The device name only feeds description().
    g_hardware = std::make_shared<Tensile::AMDGPU>(
        proc, int(cus), int(apu), "oracle " + processor + " " + std::to_string(cus) + "CU");

    if(force_xf32)
        g_handle.math_mode = rocblas_xf32_xdl_math_op;
    bool xf32_supported = processor.find("gfx940") != std::string::npos
                          || processor.find("gfx941") != std::string::npos
                          || processor.find("gfx942") != std::string::npos;

    std::cerr << "oracle: loaded " << master << (lazy ? " (lazy)" : "") << " in "
              << std::chrono::duration<double>(t1 - t0).count() << " s; hardware "
              << g_hardware->description() << "; workspace " << g_handle.get_available_workspace()
              << " bytes" << std::endl;

    std::ios::sync_with_stdio(false);
    std::string raw;
    bool        header = true;
    size_t      lineno = 0, nprob = 0;
    auto        t2     = std::chrono::steady_clock::now();
    while(std::getline(std::cin, raw))
    {
        ++lineno;
        if(!raw.empty() && raw.back() == '\r')
            raw.pop_back();
        if(header)
        {
            header = false;
            continue;
        }
        if(raw.empty())
            continue;
        ++nprob;

        Line        L{};
        std::string err;
        Answer      ans;
        if(!parse_line(raw, L, err))
        {
            std::cerr << "oracle: line " << lineno << " (id " << (L.id.empty() ? "?" : L.id)
                      << "): " << err << std::endl;
            ans.tag = "error";
            std::cout << (L.id.empty() ? "?" : L.id) << '\t' << ans.index << '\t' << ans.name
                      << '\t' << ans.tag << '\n';
            continue;
        }

        // rocblas_set_math_mode keeps default math unless the device is gfx940/941/942.
        g_handle.math_mode = (L.math_mode == 1 && (xf32_supported || force_xf32))
                                 ? rocblas_xf32_xdl_math_op
                                 : rocblas_default_math;

        bool ok = true;
        try
        {
            ans = dispatch(L, ok);
            if(!ok)
            {
                std::cerr << "oracle: line " << lineno << " (id " << L.id
                          << "): type combination a=" << L.a_type << " b=" << L.b_type
                          << " c=" << L.c_type << " d=" << L.d_type
                          << " compute=" << L.compute_type << " is not instantiated by rocBLAS "
                          << (L.is_ex ? "gemm_ex" : "gemm (non-ex)") << std::endl;
                ans     = Answer{};
                ans.tag = "error";
            }
        }
        catch(std::exception const& e)
        {
            // runContractionProblem catches exceptions and reports "no solution"
            // (tensile_host.cpp:1250-1262); we flag them distinctly.
            std::cerr << "oracle: line " << lineno << " (id " << L.id
                      << "): exception from Tensile: " << e.what() << std::endl;
            ans     = Answer{};
            ans.tag = "exception";
        }
        std::cout << L.id << '\t' << ans.index << '\t' << ans.name << '\t' << ans.tag << '\n';
    }
    std::cout.flush();
    auto t3 = std::chrono::steady_clock::now();
    std::cerr << "oracle: " << nprob << " problems in "
              << std::chrono::duration<double>(t3 - t2).count() << " s" << std::endl;
    return 0;
}
