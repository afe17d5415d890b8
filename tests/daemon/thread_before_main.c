// SPDX-License-Identifier: Apache-2.0
// Preloaded into yolo-edged by test_signal_pipe: starts a thread from a library constructor,
// before main() runs, with every signal unblocked, as OpenBLAS does when it is libblas.so.3.
// The kernel may deliver the daemon's SIGHUP and SIGTERM to this thread; the daemon must still
// reload and stop cleanly.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static void* idle_worker(void* unused) {
  (void)unused;
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, NULL);
  for (;;) pause();
  return NULL;
}

__attribute__((constructor)) static void start_worker(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, idle_worker, NULL) == 0) pthread_detach(thread);
}
