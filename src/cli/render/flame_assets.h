/* The flame graph page's own style, script and controls, embedded at build
 * time from flame.css, flame.js and flame_controls.html (embed.cmake). */
#ifndef HPROF_CLI_RENDER_FLAME_ASSETS_H
#define HPROF_CLI_RENDER_FLAME_ASSETS_H

extern const char hp_flame_css[];
extern const char hp_flame_js[];
extern const char hp_flame_controls[];

#endif
