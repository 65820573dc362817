/* The public API of libgtkdemo: all the app's code is in the library; gtkdemo's main only calls in. */
#ifndef GTKDEMO_H
#define GTKDEMO_H

#define GTKDEMO_API __attribute__((visibility("default")))

/* Builds the window, shows it and runs the main loop until the process is killed. */
GTKDEMO_API int gtkdemo_run(int argc, char **argv);

/* The end of the launch: called once, from the first idle callback after the window maps.
 * Prints "gtkdemo: launch done" and, when GTKDEMO_READY_FILE is set, writes the process id
 * to that file (atomically, so a reader never sees it half-written). */
GTKDEMO_API void gtkdemo_launch_done(void);

#endif
