import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.IntBinaryOperator;

/** Reflection, method handles, var handles and dynamic proxies in a loop. */
public class ReflectMH {
    public int value;

    public ReflectMH(int value) {
        this.value = value;
    }

    public int add(int x) {
        return value + x;
    }

    static int mul(int a, int b) {
        return a * b;
    }

    public static void main(String[] args) throws Throwable {
        int n = Integer.parseInt(args[0]);
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        Constructor<ReflectMH> ctor = ReflectMH.class.getConstructor(int.class);
        Method add = ReflectMH.class.getMethod("add", int.class);
        Field field = ReflectMH.class.getField("value");
        MethodHandle mul = lookup.findStatic(ReflectMH.class, "mul", MethodType.methodType(int.class, int.class, int.class));
        MethodHandle times3 = MethodHandles.insertArguments(mul, 1, 3);
        MethodHandle filtered = MethodHandles.filterReturnValue(times3, MethodHandles.insertArguments(mul, 1, 2));
        MethodHandle getter = lookup.findGetter(ReflectMH.class, "value", int.class);
        VarHandle vh = lookup.findVarHandle(ReflectMH.class, "value", int.class);
        IntBinaryOperator proxy = (IntBinaryOperator) Proxy.newProxyInstance(ReflectMH.class.getClassLoader(),
                new Class<?>[] {IntBinaryOperator.class}, (p, m, a) -> (Integer) a[0] - (Integer) a[1]);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            ReflectMH o = ctor.newInstance(i & 15);
            sum += (Integer) add.invoke(o, 1);
            field.setInt(o, field.getInt(o) + 1);
            sum += (int) filtered.invokeExact(i & 7);
            sum += (int) getter.invokeExact(o);
            vh.getAndAdd(o, 2);
            sum += (int) vh.get(o);
            sum += proxy.applyAsInt(i & 3, 1);
            if (i % 50_000 == 0) {
                MethodHandle spun = lookup.findVirtual(ReflectMH.class, "add", MethodType.methodType(int.class, int.class))
                        .bindTo(o);
                sum += (int) spun.invokeExact(i & 1);
            }
        }
        System.out.println("compat: reflection and method handles sum=" + sum);
    }
}
