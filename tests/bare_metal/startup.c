/* tests/bare_metal/startup.c - the smallest Cortex-M start-up that runs a C++ program under
   QEMU's mps2-an386 machine with semihosting: the vector table, then reset_handler copies .data,
   clears .bss, opens the semihosting standard streams (newlib's librdimon), runs the static
   constructors and main(), and leaves through exit(), whose semihosting call ends QEMU with
   main's status.
   SPDX-License-Identifier: Apache-2.0 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t __stack_top;
extern uint32_t __data_load, __data_start, __data_end, __bss_start__, __bss_end__;
extern int main(void);
extern void __libc_init_array(void);
extern void initialise_monitor_handles(void);

/* __libc_init_array calls _init and __libc_fini_array calls _fini (crti.o, left out with
   -nostartfiles); the linker script's init arrays carry the constructors. */
void _init(void) {}
void _fini(void) {}
/* The handle of this module for __cxa_atexit (crtbegin.o, also left out). */
void* __dso_handle = &__dso_handle;

void reset_handler(void) {
  memcpy(&__data_start, &__data_load, (size_t)((char*)&__data_end - (char*)&__data_start));
  memset(&__bss_start__, 0, (size_t)((char*)&__bss_end__ - (char*)&__bss_start__));
  initialise_monitor_handles();
  __libc_init_array();
  exit(main());
}

/* A fault ends the run with a failure status instead of hanging QEMU. */
static void fault_handler(void) { _Exit(70); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(&__stack_top), /* initial stack pointer */
    reset_handler,
    fault_handler, /* NMI */
    fault_handler, /* HardFault */
    fault_handler, /* MemManage */
    fault_handler, /* BusFault */
    fault_handler, /* UsageFault */
};
