//go:build !purego

#include "textflag.h"

// func fillChunksBMI2(buf *byte, chunks int, r *Rand)
//
// One chunk per iteration: a xoshiro256** step (Rand.Uint64) in R8-R11,
// its top 32 bits v in AX, then v's bits cut into six bytes. Bytes 0, 2, 4
// take bits 0-4, {10-14,16} and 20-25 of v; bytes 1, 3, 5 take bits 5-10,
// 15-19 and {25-29,31} (the masks 31, 95, 63 and 63, 31, 95 of
// fillChunk). Each triple is disjoint and in order, so one PEXT gathers it
// and one PDEP lays it into its bytes; ' ' is added to all six at once (no
// byte exceeds 95, so nothing carries).
TEXT ·fillChunksBMI2(SB), NOSPLIT, $0-24
	MOVQ buf+0(FP), DI
	MOVQ chunks+8(FP), CX
	MOVQ r+16(FP), SI
	MOVQ 0(SI), R8  // s0
	MOVQ 8(SI), R9  // s1
	MOVQ 16(SI), R10 // s2
	MOVQ 24(SI), R11 // s3
	MOVQ $0x03f17c1f, R12     // source bits of bytes 0, 2, 4
	MOVQ $0x3f005f001f, R13   // their places
	MOVQ $0xbe0f87e0, BX      // source bits of bytes 1, 3, 5
	MOVQ $0x5f001f003f00, SI  // their places
	TESTQ CX, CX
	JLE done

loop:
	// out = rotl(s1*5, 7) * 9; v = out >> 32
	LEAQ (R9)(R9*4), AX
	ROLQ $7, AX
	LEAQ (AX)(AX*8), AX
	SHRQ $32, AX
	// t = s1 << 17; s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t;
	// s3 = rotl(s3, 45)
	MOVQ R9, DX
	SHLQ $17, DX
	XORQ R8, R10
	XORQ R9, R11
	XORQ R10, R9
	XORQ R11, R8
	XORQ DX, R10
	ROLQ $45, R11
	// the six bytes
	PEXTQ R12, AX, DX
	PDEPQ R13, DX, DX
	PEXTQ BX, AX, AX
	PDEPQ SI, AX, AX
	ORQ DX, AX
	ADDQ spaces<>(SB), AX
	MOVL AX, 0(DI)
	SHRQ $32, AX
	MOVW AX, 4(DI)
	ADDQ $6, DI
	DECQ CX
	JNZ loop

	MOVQ r+16(FP), SI
	MOVQ R8, 0(SI)
	MOVQ R9, 8(SI)
	MOVQ R10, 16(SI)
	MOVQ R11, 24(SI)

done:
	RET

// func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL subleaf+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// ' ' in each of a chunk's six bytes.
DATA spaces<>+0(SB)/8, $0x0000202020202020
GLOBL spaces<>(SB), RODATA|NOPTR, $8
