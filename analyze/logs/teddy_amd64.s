#include "textflag.h"

// func teddyCandidates(m *teddyMasks, b []byte, out []uint32) (n int, next int)
//
// For each 32 bytes at i (loads at i, i+1, i+2, i+3), the AND over the four
// fingerprint positions k of lo[k][byte&15] & hi[k][byte>>4]: a non-zero
// byte j is a candidate at i+j. Y0-Y3 lo masks, Y4-Y7 hi masks, Y8 the
// 0x0f nibble mask, Y15 zero.
TEXT ·teddyCandidates(SB), NOSPLIT, $0-72
	MOVQ m+0(FP), DI
	MOVQ b_base+8(FP), SI
	MOVQ b_len+16(FP), DX
	MOVQ out_base+32(FP), R8
	MOVQ out_len+40(FP), R9

	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	VMOVDQU 128(DI), Y4
	VMOVDQU 160(DI), Y5
	VMOVDQU 192(DI), Y6
	VMOVDQU 224(DI), Y7
	VMOVDQU 256(DI), Y8
	VPXOR   Y15, Y15, Y15

	XORQ BX, BX          // i
	XORQ CX, CX          // n
	MOVQ DX, R10
	SUBQ $35, R10        // the last i with i+35 <= len(b)
	SUBQ $32, R9         // the last n with room for 32 more

loop:
	CMPQ BX, R10
	JGT  done
	CMPQ CX, R9
	JGT  done

	VMOVDQU (SI)(BX*1), Y9
	VPAND   Y8, Y9, Y10
	VPSRLW  $4, Y9, Y11
	VPAND   Y8, Y11, Y11
	VPSHUFB Y10, Y0, Y12
	VPSHUFB Y11, Y4, Y14
	VPAND   Y12, Y14, Y14

	VMOVDQU 1(SI)(BX*1), Y9
	VPAND   Y8, Y9, Y10
	VPSRLW  $4, Y9, Y11
	VPAND   Y8, Y11, Y11
	VPSHUFB Y10, Y1, Y12
	VPSHUFB Y11, Y5, Y13
	VPAND   Y12, Y14, Y14
	VPAND   Y13, Y14, Y14

	VMOVDQU 2(SI)(BX*1), Y9
	VPAND   Y8, Y9, Y10
	VPSRLW  $4, Y9, Y11
	VPAND   Y8, Y11, Y11
	VPSHUFB Y10, Y2, Y12
	VPSHUFB Y11, Y6, Y13
	VPAND   Y12, Y14, Y14
	VPAND   Y13, Y14, Y14

	VMOVDQU 3(SI)(BX*1), Y9
	VPAND   Y8, Y9, Y10
	VPSRLW  $4, Y9, Y11
	VPAND   Y8, Y11, Y11
	VPSHUFB Y10, Y3, Y12
	VPSHUFB Y11, Y7, Y13
	VPAND   Y12, Y14, Y14
	VPAND   Y13, Y14, Y14

	VPCMPEQB  Y15, Y14, Y14
	VPMOVMSKB Y14, AX
	NOTL      AX
	TESTL     AX, AX
	JZ        advance

bits:
	BSFL AX, R11
	ADDL BX, R11
	MOVL R11, (R8)(CX*4)
	INCQ CX
	LEAL -1(AX), R12
	ANDL R12, AX
	JNZ  bits

advance:
	ADDQ $32, BX
	JMP  loop

done:
	MOVQ CX, n+56(FP)
	MOVQ BX, next+64(FP)
	VZEROUPPER
	RET
