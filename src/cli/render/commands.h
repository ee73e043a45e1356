/* The profile commands of hprof: collapsed, pprof, flame, diff, merge. */
#ifndef HPROF_CLI_RENDER_COMMANDS_H
#define HPROF_CLI_RENDER_COMMANDS_H

/* Whether `name` is one of these commands. */
int hp_is_profile_command(const char *name);
/* Runs one (argv[1] is the command); returns the exit status. */
int hp_profile_main(int argc, char **argv);

#endif
