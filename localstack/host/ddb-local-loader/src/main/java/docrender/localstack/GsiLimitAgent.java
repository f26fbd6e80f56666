package docrender.localstack;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

import javassist.ClassPool;
import javassist.CtClass;
import javassist.LoaderClassPath;
import javassist.bytecode.CodeIterator;
import javassist.bytecode.MethodInfo;
import javassist.bytecode.Opcode;

/**
 * DynamoDB Local refuses a table with more than 20 global secondary indexes;
 * AWS allows more. LocalStack starts DynamoDB Local with an agent that lifts
 * that bound: this one does so by rewriting, as the class loads, the constant
 * 20 that CreateTableFunction.apply compares the index count with.
 * Anything unexpected leaves the class as it was.
 */
public final class GsiLimitAgent implements ClassFileTransformer {
    private static final String TARGET = "com/amazonaws/services/dynamodbv2/local/shared/access/api/cp/CreateTableFunction";
    private static final int DYNAMODB_LOCAL_LIMIT = 20;
    private static final int LIFTED_LIMIT = 100;

    public static void premain(String arguments, Instrumentation instrumentation) {
        instrumentation.addTransformer(new GsiLimitAgent());
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain, byte[] original) {
        if (!TARGET.equals(className)) return null;
        try {
            ClassPool pool = new ClassPool(true);
            if (loader != null) pool.appendClassPath(new LoaderClassPath(loader));
            CtClass type = pool.makeClass(new java.io.ByteArrayInputStream(original));
            boolean changed = false;
            for (var method : type.getDeclaredMethods("apply")) {
                MethodInfo info = method.getMethodInfo();
                if (info.getCodeAttribute() == null) continue;
                for (CodeIterator code = info.getCodeAttribute().iterator(); code.hasNext(); ) {
                    int at = code.next();
                    if (code.byteAt(at) == Opcode.BIPUSH && code.byteAt(at + 1) == DYNAMODB_LOCAL_LIMIT) {
                        code.writeByte(LIFTED_LIMIT, at + 1);
                        changed = true;
                    }
                }
            }
            byte[] rewritten = changed ? type.toBytecode() : null;
            type.detach();
            return rewritten;
        } catch (Exception | LinkageError error) {
            System.err.println("ddb-local-loader: " + className + " left unchanged: " + error);
            return null;
        }
    }
}
