// Stand-in for MIOpen's public header: the data types TunaNet encodes (values as in miopen.h).
#pragma once
typedef enum
{
    miopenHalf     = 0,
    miopenFloat    = 1,
    miopenInt32    = 2,
    miopenInt8     = 3,
    miopenBFloat16 = 5,
    miopenDouble   = 6,
    miopenFloat8   = 7,
    miopenBFloat8  = 8,
    miopenInt64    = 9,
} miopenDataType_t;
