/* The Methodref of each hook in the class being rewritten, added to its
 * constant pool on first use. */
#include "bci/rewrite_ctx.h"

uint32_t rw_hook_ref(rw_ctx *x, int k)
{
    const struct bci_hooks *h = x->h;
    const char *name[HK_COUNT] = {h->entry_name,       h->exit_name,    h->leaf_name,
                                  h->resume_name,      h->call_name,    h->switch_from_name,
                                  h->switch_to_name,   h->new_obj_name, h->new_array_name,
                                  h->object_init_name, h->invoke_name,  h->mark_name};
    const char *desc[HK_COUNT] = {h->entry_desc,       h->exit_desc,    h->leaf_desc,
                                  h->resume_desc,      h->call_desc,    h->switch_from_desc,
                                  h->switch_to_desc,   h->new_obj_desc, h->new_array_desc,
                                  h->object_init_desc, h->invoke_desc,  h->mark_desc};
    const char *owner = k < HK_NEW ? h->method_class : h->alloc_class;
    if (!x->mref[k])
        x->mref[k] =
            cp_add_methodref(&x->cf.cp, owner ? owner : h->tracker_class, name[k], desc[k]);
    return x->mref[k];
}
